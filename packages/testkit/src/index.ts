export * from './ports';
export * from './wait';
export * from './proxy';
export * from './service-process';
export * from './env';
export * from './stack';
export * from './oauth2-mock';
export * from './topic-reader';
