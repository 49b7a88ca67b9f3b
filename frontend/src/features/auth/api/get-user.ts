import { webApi, type UserData } from '@shortener/contracts/web';
import { apiRequest, type ApiResult } from '../../../lib/api';

/**
 * publicApi.getUser: a 401 carries the server's message and callBack; anything else reads
 * 'Server error'.
 */
export function getUser(): Promise<ApiResult<UserData>> {
  return apiRequest(webApi.getUser, {
    showsServerMessage: (status) => status === 401,
  });
}
