export type UnifiedFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export interface FinishReason {
  unified: UnifiedFinishReason;
  /** The provider's own value (`end_turn`, `MAX_TOKENS`, ...), or null when none was given. */
  raw: string | null;
  /** The stop sequence that ended the output, when the provider says which. */
  stopSequence?: string;
  /**
   * Sources the answer cites, as URLs, when the provider lists them once for the whole
   * answer (xAI live search). Carried on the finish because that is where they arrive.
   */
  citations?: string[];
}
