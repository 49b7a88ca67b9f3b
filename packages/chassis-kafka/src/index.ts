import './negative-timeout';
export * from './kafka';
