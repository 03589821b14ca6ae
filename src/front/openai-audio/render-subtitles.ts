// SubRip (srt) and WebVTT renderings of a transcript's segments, for providers that return
// segments (the sim, a verbose_json answer) when the client asked for subtitles.

export interface TimedText {
  start: number;
  end: number;
  text: string;
}

/** Seconds → `HH:MM:SS,mmm` (srt) or `HH:MM:SS.mmm` (vtt). */
export function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}${separator}${pad(ms % 1000, 3)}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function renderSrt(segments: readonly TimedText[]): string {
  return segments.map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text.trim()}\n`).join('\n') + '\n';
}

export function renderVtt(segments: readonly TimedText[]): string {
  return `WEBVTT\n\n${segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text.trim()}\n`).join('\n')}\n`;
}

/** The segments a result carries that have a start, an end and text. */
export function timedSegments(segments: readonly unknown[] | undefined): TimedText[] {
  const out: TimedText[] = [];
  for (const s of segments ?? []) {
    const seg = s as Partial<TimedText>;
    if (typeof seg.start === 'number' && typeof seg.end === 'number' && typeof seg.text === 'string')
      out.push({ start: seg.start, end: seg.end, text: seg.text });
  }
  return out;
}
