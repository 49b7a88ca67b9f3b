import { act, renderHook } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useLiveVisits } from './use-live-visits';
import { FakeEventSource } from '../../../test/event-source';

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
    void act(() => source?.open());
    expect(result.current).toBe('live');
    void act(() => source?.send('end', { reason: 'server stopping' }));
    void act(() => source?.drop());
    expect(source?.readyState).toBe(FakeEventSource.CONNECTING);
    expect(result.current).toBe('reconnecting');
    void act(() => source?.open());
    expect(result.current).toBe('live');
    expect(onLinkGone).not.toHaveBeenCalled();
  });

  it('stops for good when the link is deleted', () => {
    const onLinkGone = vi.fn();
    const { result } = renderHook(() => useLiveVisits('Ab3dE5g', { onVisit: vi.fn(), onLinkGone }));
    const [source] = FakeEventSource.instances;
    void act(() => source?.open());
    void act(() => source?.send('end', { reason: 'link deleted' }));
    expect(source?.readyState).toBe(FakeEventSource.CLOSED);
    expect(result.current).toBe('ended');
    expect(onLinkGone).toHaveBeenCalledTimes(1);
  });
});
