/*
 * Satchel web app: upload by drag and drop or the file input, with a progress bar, through the
 * engine's resumable uploads (src/pages/upload.tsx). Each file is sent in parts at an offset;
 * when the connection drops, the script asks the server how much it kept and goes on from there.
 */
(() => {
  const zone = document.getElementById('upload');
  if (!zone) return;
  const input = document.getElementById('upload-files');
  const bar = document.getElementById('upload-progress');
  const status = document.getElementById('upload-status');
  const endpoint = zone.dataset.endpoint;
  const folder = zone.dataset.folder === '/' ? '' : zone.dataset.folder;
  const csrf = zone.dataset.csrf;
  const PART = 4 * 1024 * 1024;
  const RETRIES = 20;
  // Answers that say "not now" rather than "no": a stalled body, too many at once, a proxy.
  const RETRYABLE = new Set([408, 429, 502, 503, 504]);

  const say = (text) => {
    status.textContent = text;
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** One request; resolves with {status, json} or rejects when the connection fails. */
  function send(method, url, body, headers, onProgress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, url);
      xhr.setRequestHeader('X-CSRF-Token', csrf);
      for (const [k, v] of Object.entries(headers || {})) xhr.setRequestHeader(k, v);
      if (onProgress) xhr.upload.onprogress = (e) => onProgress(e.loaded);
      xhr.onload = () => {
        let json = null;
        try {
          json = JSON.parse(xhr.responseText);
        } catch {}
        resolve({ status: xhr.status, json });
      };
      xhr.onerror = () => reject(new Error('connection lost'));
      xhr.onabort = () => reject(new Error('connection lost'));
      xhr.send(body);
    });
  }

  const form = (fields) => new URLSearchParams(fields).toString();
  const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

  function failed(res) {
    const detail = res.json && (res.json.detail || res.json.message || res.json.title);
    return new Error(detail || `the server answered ${res.status}`);
  }

  async function uploadOne(file, session, done, total) {
    const path = `${folder}/${file.name}`;
    const fields = { path, size: String(file.size) };
    if (session) fields.session = session;
    const created = await send('POST', endpoint, form(fields), FORM);
    if (created.status !== 201) throw failed(created);
    const { id } = created.json;
    const url = `${endpoint}/${encodeURIComponent(id)}`;
    let offset = 0;
    let retries = 0;
    const show = (sent) => {
      bar.value = Math.floor(((done + sent) / Math.max(total, 1)) * 100);
    };
    while (offset < file.size) {
      const end = Math.min(offset + PART, file.size);
      try {
        const from = offset;
        const res = await send(
          'PATCH',
          url,
          file.slice(from, end),
          { 'Upload-Offset': String(from), 'Content-Type': 'application/offset+octet-stream' },
          (loaded) => show(from + loaded),
        );
        if (res.status === 200) {
          offset = res.json.offset;
        } else if (res.status === 409) {
          offset = await resumeAt(url);
        } else if (RETRYABLE.has(res.status)) {
          throw new Error('connection lost');
        } else {
          throw failed(res);
        }
      } catch (error) {
        if (!(error instanceof Error) || error.message !== 'connection lost') throw error;
        if (++retries > RETRIES) throw new Error('the connection keeps dropping; try again later');
        say(`Connection lost while sending ${file.name}; resuming…`);
        await sleep(Math.min(500 * retries, 5000));
        offset = await resumeAt(url);
        say(`Resumed ${file.name} at ${Math.round((offset / file.size) * 100)}%`);
      }
      show(offset);
    }
    const complete = await send('POST', `${url}/complete`, '', FORM);
    if (complete.status !== 200) throw failed(complete);
    return { session: created.json.session, result: complete.json };
  }

  /** How many bytes the server has: where the next part starts. Waits out a short outage. */
  async function resumeAt(url) {
    for (let i = 0; ; i++) {
      try {
        const res = await send('GET', url, null, {});
        if (res.status === 200) return res.json.offset;
        throw failed(res);
      } catch (error) {
        if (i >= RETRIES || error.message !== 'connection lost') throw error;
        await sleep(1000);
      }
    }
  }

  async function uploadAll(files) {
    if (files.length === 0) return;
    const total = files.reduce((sum, f) => sum + f.size, 0);
    bar.hidden = false;
    bar.value = 0;
    zone.setAttribute('aria-busy', 'true');
    let done = 0;
    let session = null;
    let last = null;
    try {
      for (const file of files) {
        say(`Uploading ${file.name}…`);
        const up = await uploadOne(file, session, done, total);
        session = up.session;
        last = up.result;
        done += file.size;
      }
      bar.value = 100;
      const names = files.map((f) => f.name).join(', ');
      say(`Uploaded ${names}.`);
      const next = new URL(last.next, location.href);
      next.searchParams.set('done', `Uploaded ${names}.`);
      location.assign(next.toString());
    } catch (error) {
      say(`Upload failed: ${error.message}`);
    } finally {
      zone.removeAttribute('aria-busy');
    }
  }

  input.addEventListener('change', () => uploadAll([...input.files]));
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    uploadAll([...e.dataTransfer.files]);
  });
})();
