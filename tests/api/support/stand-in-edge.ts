import type { IncomingMessage, ServerResponse } from 'node:http';
import { startEdge, type EdgeProcess } from '@shortener/testkit';
import { startCapture, type Capture } from './capture';

type Answer = (req: IncomingMessage, res: ServerResponse) => void;

export interface StandInEdge {
  edge: EdgeProcess;
  /** Stands in for the redirect service: what reaches it is in `redirect.seen`. */
  redirect: Capture;
  /** Stands in for the gateway. */
  gateway: Capture;
  /** Forgets what both saw so far (before each test). */
  forget(): void;
  stop(): Promise<void>;
}

/** The nginx edge (infra/edge.mjs) in front of two capture servers answering as given. */
export async function startStandInEdge(answers: {
  redirect: Answer;
  gateway: Answer;
}): Promise<StandInEdge> {
  const redirect = await startCapture(answers.redirect);
  const gateway = await startCapture(answers.gateway);
  const closeCaptures = () =>
    Promise.all(
      [redirect, gateway].map(({ server }) => new Promise((resolve) => server.close(resolve))),
    );
  let edge: EdgeProcess;
  try {
    edge = await startEdge(redirect.address, gateway.address);
  } catch (error) {
    // Left open, the stand-ins keep Jest from ever exiting (seen: a run hung after the edge
    // could not bind its port).
    await closeCaptures();
    throw error;
  }
  return {
    edge,
    redirect,
    gateway,
    forget: () => {
      redirect.seen.length = 0;
      gateway.seen.length = 0;
    },
    stop: async () => {
      await edge.stop();
      await closeCaptures();
    },
  };
}
