import type { ModelKind } from '../canonical/task.ts';

// `gen_ai.operation.name` of the OpenTelemetry GenAI semantic conventions, per surface:
// `chat` for the three chat dialects, `embeddings` for embeddings, and `generate_content`
// (the conventions' multimodal generation) for images, speech and transcription, which the
// conventions name no operation of their own for. Spans also carry `switchyard.route` (the
// dialect), which tells those three apart.

export type GenAiOperation = 'chat' | 'embeddings' | 'generate_content';

export function operationOfKind(kind: ModelKind | undefined): GenAiOperation {
  switch (kind) {
    case undefined:
    case 'chat':
      return 'chat';
    case 'embedding':
      return 'embeddings';
    default:
      return 'generate_content';
  }
}

/** `dialect` as generation records hold it (a DialectName). */
export function operationOfDialect(dialect: string): GenAiOperation {
  switch (dialect) {
    case 'embeddings':
      return 'embeddings';
    case 'images':
    case 'speech':
    case 'transcriptions':
      return 'generate_content';
    default:
      return 'chat';
  }
}
