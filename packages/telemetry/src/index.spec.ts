import { inLinkedSpan, sampledSpan, tracingConfigured, tracingEnabled } from './index';

describe('tracingConfigured', () => {
  it('is off by default: no exporter, no endpoint', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(
      tracingConfigured({ OTEL_SERVICE_NAME: 'redirect', OTEL_TRACES_SAMPLER: 'always_on' }),
    ).toBe(false);
  });

  it('is on once an exporter or an OTLP endpoint is configured', () => {
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
    ).toBe(true);
  });

  it('stays off when the exporter is none or the SDK is disabled, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: ' None ' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe('off', () => {
  it('runs the work of a linked span as it is, without asking for its links', async () => {
    expect(tracingEnabled()).toBe(false);
    const links = jest.fn(() => []);
    await expect(inLinkedSpan('store', links, {}, () => Promise.resolve(7))).resolves.toBe(7);
    expect(links).not.toHaveBeenCalled();
    expect(sampledSpan()).toBeUndefined();
  });
});
