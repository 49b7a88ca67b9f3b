export * from './links';
export * from './api';
export * from './visits';
// The visit codec's bytes stay inside it: what producers and consumers call, nothing more.
export {
  appendVisit,
  decodeVisits,
  encodedVisitEnd,
  encodedVisitUrlID,
  encodeVisitEvent,
  encodeVisitRecord,
  encodeVisits,
  encodeVisitTraces,
  readVisitTraces,
  visitBytesBound,
  VISIT_ID_BYTES,
  VISIT_RECORD_MAX_BYTES,
  VISIT_RECORD_MAX_EVENTS,
  VISIT_TRACES_HEADER,
  VISIT_TRACES_MAX,
  VISIT_UTM_HEADER,
  visitRecordOf,
  VisitRecordBuilder,
  /** A UUID's 16 bytes, written fast (PostgreSQL's binary uuid arrays use it too). */
  writeUuid,
  type EncodedVisits,
  type RecordedVisit,
  type VisitMessage,
  type VisitTrace,
} from './visit-codec';
export * from './internal';
export * from './internal-api';
export * from './sessions';
export * from './api-requests';
export * from './api-keys';
export * from './domains';
export * from './link-rules';
export * from './public-api';
export * from './page-routes';
export * from './short-link-route';
export * from './stats';
export * from './stats-queries';
export * from './account-stats';
export * from './web-pages';
export * from './page-cursor';
