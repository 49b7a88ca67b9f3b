export * from './links';
export * from './api';
export * from './visits';
export * from './internal';
