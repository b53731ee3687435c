/** If-None-Match against one ETag, with the weak comparison RFC 9110 §13.1.2 prescribes. */
export function notModified(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (typeof ifNoneMatch !== 'string') return false;
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => strip(tag) === etag);
}
