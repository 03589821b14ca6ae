/** The client dialect a request arrived in (front/<dialect>/), as generation records name it. */
export type DialectName = 'chat' | 'messages' | 'responses' | 'gemini';
