import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLiveVisits } from './use-live-visits';

/** EventSource as the browser has it, driven by the test. */
class FakeEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.dispatchEvent(new Event('open'));
  }
  /** The server closed the stream: EventSource tries again by itself. */
  drop() {
    if (this.readyState === FakeEventSource.CLOSED) return;
    this.readyState = FakeEventSource.CONNECTING;
    this.dispatchEvent(new Event('error'));
  }
  send(type: string, data: unknown) {
    this.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
}

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => vi.unstubAllGlobals());

describe('useLiveVisits', () => {
  it('reconnects when the server ends the stream because it is stopping', () => {
    const onLinkGone = vi.fn();
    const { result } = renderHook(() => useLiveVisits('Ab3dE5g', { onVisit: vi.fn(), onLinkGone }));
    const [source] = FakeEventSource.instances;
    act(() => source?.open());
    expect(result.current).toBe('live');
    act(() => source?.send('end', { reason: 'server stopping' }));
    act(() => source?.drop());
    expect(source?.readyState).toBe(FakeEventSource.CONNECTING);
    expect(result.current).toBe('reconnecting');
    act(() => source?.open());
    expect(result.current).toBe('live');
    expect(onLinkGone).not.toHaveBeenCalled();
  });

  it('stops for good when the link is deleted', () => {
    const onLinkGone = vi.fn();
    const { result } = renderHook(() => useLiveVisits('Ab3dE5g', { onVisit: vi.fn(), onLinkGone }));
    const [source] = FakeEventSource.instances;
    act(() => source?.open());
    act(() => source?.send('end', { reason: 'link deleted' }));
    expect(source?.readyState).toBe(FakeEventSource.CLOSED);
    expect(result.current).toBe('ended');
    expect(onLinkGone).toHaveBeenCalledTimes(1);
  });
});
