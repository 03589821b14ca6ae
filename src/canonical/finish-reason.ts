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
  /** Sources of a web search the gateway ran, located in the answer's text where it cites them (docs/tools.md). */
  annotations?: UrlCitation[];
  /** A web search the gateway was to run failed and the request allowed an answer without it: why. */
  searchSkipped?: string;
}

/** OpenAI's and OpenRouter's `url_citation` annotation: a source and where the text cites it (UTF-16 offsets, both 0 when it is not cited inline). */
export interface UrlCitation {
  type: 'url_citation';
  url_citation: { url: string; title: string; content: string; start_index: number; end_index: number };
}
