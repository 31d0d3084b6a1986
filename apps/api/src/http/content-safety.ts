/**
 * Headers that keep stored content from running as a page of the API's origin: a workspace
 * file is data that any member may have written, so a browser must never render it as HTML,
 * SVG or XML with the API's cookies, storage and same-origin access.
 */
import { create as contentDisposition } from 'content-disposition';

/** No MIME sniffing: a text/plain file full of markup stays text. */
export const NOSNIFF = 'nosniff';
/** A sandbox with no sources: even a document a browser renders runs no script, loads nothing. */
export const SANDBOXED = "default-src 'none'; sandbox";

/**
 * Sent on every file read (200, 206, HEAD, 304): no MIME sniffing, and a sandbox with no
 * sources, so a rendered document has an opaque origin.
 */
export const CONTENT_SAFETY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': NOSNIFF,
  'Content-Security-Policy': SANDBOXED,
};

const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'application/xslt+xml',
  'multipart/x-mixed-replace',
]);

/**
 * True for media types a browser renders as an active document (markup that can run script or
 * embed other resources): HTML, XHTML, SVG and every XML type (`…/xml`, `…+xml`).
 */
export function isActiveType(contentType: string): boolean {
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return ACTIVE_TYPES.has(media) || media.endsWith('+xml') || media.endsWith('/xml');
}

/**
 * `Content-Disposition` of a file read: `attachment` for active types (a browser downloads them
 * instead of rendering them), `inline` for the rest, with the file's name RFC 6266-encoded (an
 * ASCII `filename` fallback and a UTF-8 `filename*`).
 */
export function dispositionOf(name: string, contentType: string): string {
  return contentDisposition(name, { type: isActiveType(contentType) ? 'attachment' : 'inline' });
}
