export * from './database';
export * from './database.module';
