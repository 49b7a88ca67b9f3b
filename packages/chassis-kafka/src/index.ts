export * from './kafka';
