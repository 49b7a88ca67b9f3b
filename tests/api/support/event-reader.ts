import { liveVisitSchema, type LiveVisit } from '@shortener/contracts';

/** Reads Server-Sent Events off a streamed answer, as EventSource would. */
export class EventReader {
  readonly events: Array<{ event: string; data: string }> = [];
  ended = false;
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(response: Response) {
    const reader = response.body!.getReader();
    this.reader = reader;
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        let chunk: { done: boolean; value?: Uint8Array };
        try {
          chunk = await reader.read();
        } catch {
          chunk = { done: true, value: undefined };
        }
        if (chunk.done) {
          this.ended = true;
          return;
        }
        this.buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) !== -1) {
          const block = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data !== undefined) this.events.push({ event, data });
        }
      }
    })();
  }

  visits(): LiveVisit[] {
    return this.events
      .filter(({ event }) => event === 'visit')
      .map(({ data }) => liveVisitSchema.parse(JSON.parse(data)));
  }

  /** Goes away, as a browser leaving the page. */
  close(): Promise<void> {
    return this.reader.cancel();
  }
}
