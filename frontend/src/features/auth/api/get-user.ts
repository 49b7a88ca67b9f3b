import { userDataSchema, type UserData } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

/** GET /api/user. A 401 carries the server's message and callBack; anything else reads 'Server error'. */
export function getUser(): Promise<ApiResult<UserData>> {
  return apiRequest('GET', '/api/user', userDataSchema, {
    showsServerMessage: (status) => status === 401,
  });
}
