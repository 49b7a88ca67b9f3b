export * from './user-agent.parser';
export * from './country';
