export * from './tokens';
export * from './ops.controller';
export * from './chassis.module';
export * from './bootstrap';
export * from './database.module';
export * from './redis.module';
export * from './internal-auth.guard';
