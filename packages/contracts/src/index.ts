export * from './links';
export * from './api';
export * from './visits';
export * from './internal';
export * from './internal-api';
export * from './sessions';
export * from './api-requests';
export * from './public-api';
