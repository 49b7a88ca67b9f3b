export * from './tokens';
export * from './ops.controller';
export * from './chassis.module';
export * from './bootstrap';
export * from './internal-auth.guard';
export * from './request-body';
export * from './request-body.module';
export * from './nest-routes';
