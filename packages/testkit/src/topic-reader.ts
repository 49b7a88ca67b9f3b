import type { Kafka, KafkaMessage } from 'kafkajs';

/** Every message a topic holds and receives, gathered in the background for assertions. */
export interface TopicReader {
  messages: KafkaMessage[];
  /** The reader's consumer group, to delete afterwards: it is for one run only. */
  groupId: string;
  stop(): Promise<void>;
}

/** Reads `topic` from its beginning in a consumer group of its own until stopped. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  groupId: string,
): Promise<TopicReader> {
  const consumer = kafka.consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const messages: KafkaMessage[] = [];
  await consumer.run({
    eachMessage: ({ message }) => {
      messages.push(message);
      return Promise.resolve();
    },
  });
  return { messages, groupId, stop: () => consumer.disconnect() };
}
