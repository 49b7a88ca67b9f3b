import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ConfigError, loadConfig } from '@shortener/chassis';
import {
  aclRefusal,
  checkKafkaSecurity,
  kafkaClientConfig,
  kafkaEnv,
  type KafkaSecuritySettings,
} from './kafka';

const shape = {
  KAFKA_SASL_MECHANISM: kafkaEnv.saslMechanism(),
  KAFKA_USERNAME: kafkaEnv.username(),
  KAFKA_PASSWORD: kafkaEnv.password(),
  KAFKA_SSL: kafkaEnv.ssl(),
};

function load(source: NodeJS.ProcessEnv): KafkaSecuritySettings {
  return checkKafkaSecurity('svc', loadConfig('svc', shape, source));
}

function problemsOf(source: NodeJS.ProcessEnv): string[] {
  try {
    load(source);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

const clientConfig = (settings: KafkaSecuritySettings) =>
  kafkaClientConfig({
    brokers: ['kafka:9092'],
    clientId: 'svc',
    logger: pino({ enabled: false }),
    security: settings,
  });

describe('Kafka client security settings', () => {
  it('without a mechanism: plain TCP, no authentication (the local broker)', () => {
    const config = clientConfig(load({}));
    expect(config.ssl).toBe(false);
    expect(config.sasl).toBeUndefined();
  });

  it.each(['scram-sha-512', 'scram-sha-256', 'plain'] as const)(
    'with KAFKA_SASL_MECHANISM=%s: SASL with the username and password, TLS when KAFKA_SSL is on',
    (mechanism) => {
      const config = clientConfig(
        load({
          KAFKA_SASL_MECHANISM: mechanism,
          KAFKA_USERNAME: 'redirect',
          KAFKA_PASSWORD: 'a-password-of-its-own',
          KAFKA_SSL: 'true',
        }),
      );
      expect(config.sasl).toEqual({
        mechanism,
        username: 'redirect',
        password: 'a-password-of-its-own',
      });
      expect(config.ssl).toBe(true);
      expect(config.brokers).toEqual(['kafka:9092']);
    },
  );

  it('reads the password from KAFKA_PASSWORD_FILE', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'kafka-')), 'password');
    writeFileSync(file, 'from-a-mounted-secret\n');
    const settings = load({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_USERNAME: 'analytics',
      KAFKA_PASSWORD_FILE: file,
    });
    expect(clientConfig(settings).sasl).toMatchObject({ password: 'from-a-mounted-secret' });
  });

  it('refuses a mechanism without its username and password, listing both', () => {
    expect(problemsOf({ KAFKA_SASL_MECHANISM: 'scram-sha-512' })).toEqual([
      'KAFKA_USERNAME: is required when KAFKA_SASL_MECHANISM is set (scram-sha-512)',
      'KAFKA_PASSWORD: is required when KAFKA_SASL_MECHANISM is set (scram-sha-512)',
    ]);
    expect(problemsOf({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_USERNAME: 'redirect' })).toEqual([
      'KAFKA_PASSWORD: is required when KAFKA_SASL_MECHANISM is set (plain)',
    ]);
  });

  it('refuses credentials that would be ignored for want of a mechanism, and unknown mechanisms', () => {
    expect(problemsOf({ KAFKA_USERNAME: 'redirect', KAFKA_PASSWORD: 'secret' })).toEqual([
      expect.stringMatching(/^KAFKA_USERNAME: is set but KAFKA_SASL_MECHANISM is not/),
      expect.stringMatching(/^KAFKA_PASSWORD: is set but KAFKA_SASL_MECHANISM is not/),
    ]);
    expect(problemsOf({ KAFKA_SASL_MECHANISM: 'gssapi' })).toEqual([
      expect.stringMatching(/^KAFKA_SASL_MECHANISM: /),
    ]);
    expect(problemsOf({ KAFKA_SSL: 'maybe' })).toEqual([expect.stringMatching(/^KAFKA_SSL: /)]);
  });
});

describe('aclRefusal', () => {
  // The errors as kafkajs throws them: the broker's answer, wrapped in its retry errors.
  const protocolError = (type: string, message: string) =>
    Object.assign(new Error(message), { name: 'KafkaJSProtocolError', type });

  it("finds Kafka's refusal of an ACL however deep kafkajs wrapped it", () => {
    const refused = protocolError(
      'TOPIC_AUTHORIZATION_FAILED',
      'Not authorized to access topics: [Topic authorization failed]',
    );
    const wrapped = new Error('retries exceeded', {
      cause: new Error('again', { cause: refused }),
    });
    expect(aclRefusal(wrapped)).toBe(refused.message);
    expect(
      aclRefusal(protocolError('CLUSTER_AUTHORIZATION_FAILED', 'Cluster authorization failed')),
    ).toBe('Cluster authorization failed');
  });

  it('reads a group without a coordinator as the refused group kafkajs makes of it', () => {
    const lost = Object.assign(new Error('Failed to find group coordinator'), {
      name: 'KafkaJSGroupCoordinatorNotFound',
    });
    expect(aclRefusal(lost)).toMatch(/GROUP_AUTHORIZATION_FAILED/);
  });

  it('is undefined for any other failure', () => {
    expect(
      aclRefusal(protocolError('UNKNOWN_TOPIC_OR_PARTITION', 'no such topic')),
    ).toBeUndefined();
    expect(aclRefusal(new Error('Connection timeout'))).toBeUndefined();
    expect(aclRefusal('a string')).toBeUndefined();
  });
});
