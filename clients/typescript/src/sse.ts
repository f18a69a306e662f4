/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Parses the text/event-stream format (the HTML standard's rules: `event`, `data`, `id` fields, comments, an event
 * dispatched at each blank line) from chunks of text as they arrive.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;
  /** The last line ended with a CR that was the last character of a chunk: a LF starting the next one belongs to it. */
  private afterCr = false;

  constructor(private readonly dispatch: (event: SseEvent) => void) {}

  push(chunk: string): void {
    if (this.afterCr && chunk.length > 0) {
      if (chunk.startsWith('\n')) {
        chunk = chunk.slice(1);
      }
      this.afterCr = false;
    }
    this.buffer += chunk;
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) {
        return;
      }
      const cr = this.buffer[end] === '\r';
      const crlf = cr && this.buffer[end + 1] === '\n';
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (crlf ? 2 : 1));
      if (cr && !crlf && this.buffer === '') {
        this.afterCr = true;
      }
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) {
        this.dispatch({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      }
      this.event = '';
      this.data = [];
      this.id = undefined;
      return;
    }
    if (line.startsWith(':')) {
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (field === 'event') {
      this.event = value;
    } else if (field === 'data') {
      this.data.push(value);
    } else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
    }
  }
}

/** How a stream ended. */
export type StreamEnd =
  | { kind: 'closed' }
  | { kind: 'refused'; status: number; headers: Headers; body: string }
  | { kind: 'failed'; error: unknown };

/**
 * Opens `url` as an event stream and feeds its text to `onText` until it ends, the signal aborts, or nothing arrived
 * for `idleMs`. Uses fetch's streaming body where the platform has one (browsers, Node 18+), else XMLHttpRequest's
 * progress (React Native), else reports a failure (the caller then reads the status instead).
 */
export async function readStream(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  onText: (text: string) => void,
  idleMs: number,
  signal: AbortSignal,
): Promise<StreamEnd> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    if (idle !== undefined) {
      clearTimeout(idle);
    }
    idle = setTimeout(stop, idleMs);
  };
  try {
    touch();
    const response = await fetchImpl(url, { headers, signal: controller.signal, cache: 'no-store' });
    if (!response.ok) {
      return { kind: 'refused', status: response.status, headers: response.headers, body: await response.text() };
    }
    const reader = response.body?.getReader?.();
    if (!reader) {
      response.body?.cancel?.();
      return await readWithXhr(url, headers, onText, idleMs, signal);
    }
    // an abort (the caller's, or the idle timer's) ends the wait for the next chunk at once: a read pending on a body
    // whose response is closing does not always settle when its fetch is aborted
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    aborted.catch(() => undefined);
    const decoder = new TextDecoder();
    try {
      for (;;) {
        touch();
        const { done, value } = await Promise.race([reader.read(), aborted]);
        if (done) {
          return { kind: 'closed' };
        }
        onText(decoder.decode(value, { stream: true }));
        if (signal.aborted) {
          // the caller has what it needed (every coupon decided)
          return { kind: 'closed' };
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
  } catch (error) {
    return { kind: 'failed', error };
  } finally {
    if (idle !== undefined) {
      clearTimeout(idle);
    }
    signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

/** React Native's fetch has no streaming body; its XMLHttpRequest hands out the text as it arrives. */
function readWithXhr(
  url: string,
  headers: Record<string, string>,
  onText: (text: string) => void,
  idleMs: number,
  signal: AbortSignal,
): Promise<StreamEnd> {
  if (typeof XMLHttpRequest === 'undefined') {
    return Promise.resolve({ kind: 'failed', error: new Error('no streaming body and no XMLHttpRequest here') });
  }
  return new Promise<StreamEnd>((resolve) => {
    const xhr = new XMLHttpRequest();
    let seen = 0;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const finish = (end: StreamEnd) => {
      if (idle !== undefined) {
        clearTimeout(idle);
      }
      signal.removeEventListener('abort', abort);
      resolve(end);
    };
    const abort = () => {
      xhr.abort();
      finish({ kind: 'failed', error: new Error('aborted') });
    };
    const touch = () => {
      if (idle !== undefined) {
        clearTimeout(idle);
      }
      idle = setTimeout(abort, idleMs);
    };
    signal.addEventListener('abort', abort, { once: true });
    xhr.open('GET', url);
    for (const [name, value] of Object.entries(headers)) {
      xhr.setRequestHeader(name, value);
    }
    xhr.onreadystatechange = () => {
      if (xhr.readyState >= 3 && xhr.status === 200) {
        touch();
        const text = xhr.responseText;
        if (text.length > seen) {
          onText(text.slice(seen));
          seen = text.length;
        }
      }
      if (xhr.readyState === 4) {
        if (xhr.status === 200) {
          finish({ kind: 'closed' });
        } else if (xhr.status > 0) {
          const responseHeaders = new Headers();
          const retry = xhr.getResponseHeader('Retry-After');
          if (retry) {
            responseHeaders.set('Retry-After', retry);
          }
          finish({ kind: 'refused', status: xhr.status, headers: responseHeaders, body: xhr.responseText });
        } else {
          finish({ kind: 'failed', error: new Error('the stream failed') });
        }
      }
    };
    touch();
    xhr.send();
  });
}
