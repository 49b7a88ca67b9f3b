import { domainsApi, type Domain } from '@shortener/contracts/web-domains';
import { apiRequest, type ApiResult, type FailurePolicy } from '../../../lib/api';

/**
 * Every refusal of a domain call says why in its message: the host refused (400), taken
 * (409), the record missing or different (422), gone (404), a rate limit (429).
 */
const SHOWS_SERVER_MESSAGE: FailurePolicy = {
  showsServerMessage: (status) => status >= 400 && status < 500,
};

/** publicApi.listDomains: the user's domains, newest first. */
export function listDomains(): Promise<ApiResult<Domain[]>> {
  return apiRequest(domainsApi.listDomains, SHOWS_SERVER_MESSAGE);
}

/** publicApi.addDomain: the domain, unverified, with the TXT record to create (or as it is). */
export function addDomain(host: string): Promise<ApiResult<Domain>> {
  return apiRequest(domainsApi.addDomain, SHOWS_SERVER_MESSAGE, { body: { host } });
}

/** publicApi.verifyDomain: verified, or a 422 whose message says what is missing. */
export function verifyDomain(host: string): Promise<ApiResult<Domain>> {
  return apiRequest(domainsApi.verifyDomain, SHOWS_SERVER_MESSAGE, { params: { host } });
}

/** publicApi.deleteDomain: a 204; restoreDomain undoes it for a while. */
export function deleteDomain(host: string): Promise<ApiResult<undefined>> {
  return apiRequest(domainsApi.deleteDomain, SHOWS_SERVER_MESSAGE, { params: { host } });
}

/** publicApi.restoreDomain: the domain back as it was. */
export function restoreDomain(host: string): Promise<ApiResult<Domain>> {
  return apiRequest(domainsApi.restoreDomain, SHOWS_SERVER_MESSAGE, { params: { host } });
}
