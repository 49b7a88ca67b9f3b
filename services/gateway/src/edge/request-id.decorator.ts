import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** The id of this request (set by the request logger), to carry into internal calls. */
export const RequestId = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const id = context.switchToHttp().getRequest<{ id?: unknown }>().id;
  return typeof id === 'string' ? id : undefined;
});
