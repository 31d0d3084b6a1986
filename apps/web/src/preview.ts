/**
 * What a file's page shows of it. Content written by agents is untrusted: HTML, SVG and XML
 * are shown as source text, never rendered on the app's origin; Markdown is rendered with raw
 * HTML off and the result sanitised again; images and PDFs are shown from the raw route, whose
 * responses carry their own strict CSP (security.ts).
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

export type PreviewKind = 'markdown' | 'image' | 'pdf' | 'active' | 'text' | 'binary';

/** Bytes of a file read for a text preview; the rest is a download away. */
export const PREVIEW_BYTES = 512 * 1024;

/** Images a browser shows as pixels only (SVG is a document that can run script: not here). */
export const INLINE_IMAGES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

/** Types a browser would render as a document of their own (script, styles, forms, links). */
const ACTIVE_EXTENSIONS = new Set([
  'html',
  'htm',
  'xhtml',
  'svg',
  'svgz',
  'xml',
  'xsl',
  'xslt',
  'mht',
  'mhtml',
]);
const ACTIVE_TYPES =
  /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|(application|text)\/xml|.*\+xml)\b/i;

function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Whether a browser could run or render `path` as a document: never inline, always a download. */
export function isActive(path: string, contentType: string | null): boolean {
  return ACTIVE_EXTENSIONS.has(extensionOf(path)) || ACTIVE_TYPES.test(contentType ?? '');
}

/** The image type of `path` when it is one we show inline, else null. */
export function inlineImageType(path: string): string | null {
  return INLINE_IMAGES[extensionOf(path)] ?? null;
}

/** How the page previews a file, from its name and type (text vs binary needs its bytes). */
export function previewKind(
  path: string,
  contentType: string | null,
  head: Uint8Array,
): PreviewKind {
  const ext = extensionOf(path);
  if (isActive(path, contentType)) return 'active';
  if (inlineImageType(path) !== null) return 'image';
  if (ext === 'pdf') return 'pdf';
  if (looksBinary(head)) return 'binary';
  if (ext === 'md' || ext === 'markdown' || /^text\/markdown\b/i.test(contentType ?? '')) {
    return 'markdown';
  }
  return 'text';
}

/** Git's rule: a NUL byte in the first 8000 bytes means binary; so does invalid UTF-8. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(trimPartial(head));
    return false;
  } catch {
    return true;
  }
}

/** `bytes` without a UTF-8 sequence cut off at its end (a preview stops mid-character). */
export function trimPartial(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (need > back) end -= back;
    break;
  }
  return bytes.subarray(0, end);
}

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'input'],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title'],
    code: ['class'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: [] },
  allowProtocolRelative: false,
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }),
  },
};

/**
 * Markdown as HTML that is safe on the app's origin: markdown-it with raw HTML off (an agent's
 * `<script>` stays text) and only http(s)/mailto links, then sanitize-html with an allow-list,
 * so a parser bug in the first step is not enough. Images must be relative (no tracking pixels;
 * the page CSP allows only our origin anyway).
 */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(markdown.render(source), SANITIZE);
}
