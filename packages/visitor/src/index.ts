export * from './user-agent.parser';
export * from './country';
export * from './recent-cache';
