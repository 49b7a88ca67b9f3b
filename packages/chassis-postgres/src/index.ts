export * from './database';
export * from './database.module';
export * from './in-process';
