// multipart/form-data through busboy, each file streamed to a temporary file under DATA_DIR/tmp
// with backpressure (never held whole in memory), with limits on file size and count.
import Busboy from 'busboy';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { AppError, badRequest } from '../src/shared/errors.js';
import { isStorageUnavailable, storageUnavailable } from '../src/media/index.js';
import type { IncomingBody } from './body.js';
import type { MultipartOptions, UploadedFile } from './route.js';

const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 64 * 1024;

export interface MultipartResult {
  files: UploadedFile[];
  fields: Record<string, string>;
}

export function readMultipart(body: IncomingBody, headers: Record<string, string>, options: MultipartOptions, tmpDir: string): Promise<MultipartResult> {
  fs.mkdirSync(tmpDir, { recursive: true });
  return new Promise((resolve, reject) => {
    const files: UploadedFile[] = [];
    const fields: Record<string, string> = {};
    const pendingWrites: Promise<void>[] = [];
    const outputs: fs.WriteStream[] = [];
    let failed = false;

    const fail = (err: AppError) => {
      if (failed) return;
      failed = true;
      // Close the half-written files (their descriptors would stay open otherwise) and remove them,
      // again once closed: a file whose open was still pending would otherwise appear after the rm.
      for (const out of outputs) {
        out.once('close', () => fs.rm(String(out.path), { force: true }, () => undefined));
        out.destroy();
      }
      for (const f of files) fs.rm(f.path, { force: true }, () => undefined);
      reject(err);
    };

    let parser: Busboy.Busboy;
    try {
      parser = Busboy({
        headers: { 'content-type': headers['content-type'] },
        limits: {
          fileSize: options.maxFileBytes,
          files: options.maxFiles,
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_BYTES,
          parts: options.maxFiles + MAX_FIELDS,
        },
      });
    } catch {
      reject(
        badRequest('request.error.invalid_multipart', 'Malformed multipart/form-data request', { field: 'content-type', constraint: 'multipart boundary' }),
      );
      return;
    }

    parser.on('file', (field, stream, info) => {
      // busboy errors the file stream (as well as itself) when the form ends inside this file: an
      // error event nobody listens to is fatal to the process, for skipped files too.
      stream.on('error', () => fail(invalidMultipart()));
      if (failed || !options.fileFields.includes(field)) {
        stream.resume();
        if (!failed && !options.fileFields.includes(field)) {
          fail(badRequest('request.error.unexpected_file', `Unexpected file field ${field}`, { field, constraint: `one of ${options.fileFields.join(', ')}` }));
        }
        return;
      }
      const file: UploadedFile = {
        field,
        filename: info.filename ?? 'file',
        mimeType: info.mimeType,
        path: path.join(tmpDir, `upload-${randomUUID()}`),
        size: 0,
      };
      files.push(file);
      const out = fs.createWriteStream(file.path, { mode: 0o600 });
      outputs.push(out);
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
      });
      stream.on('limit', () => {
        fail(
          new AppError(413, 'file.error.too_large', `File exceeds ${options.maxFileBytes} bytes`, {
            field,
            constraint: `at most ${options.maxFileBytes} bytes`,
          }),
        );
      });
      const written = new Promise<void>((done, writeFailed) => {
        out.on('finish', () => done());
        out.on('error', writeFailed);
      });
      // After fail() destroys the stream its write error has no reader (Promise.all is never
      // reached): without this an oversized upload was an unhandled rejection, fatal to a process.
      written.catch(() => undefined);
      pendingWrites.push(written);
      stream.pipe(out);
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(badRequest('request.error.field_too_large', `Field ${name} is too large`, { field: name, constraint: `at most ${MAX_FIELD_BYTES} bytes` }));
        return;
      }
      fields[name] = value;
    });
    parser.on('filesLimit', () =>
      fail(
        badRequest('file.error.too_many_files', `At most ${options.maxFiles} files`, {
          field: options.fileFields[0],
          constraint: `at most ${options.maxFiles} files`,
        }),
      ),
    );
    parser.on('fieldsLimit', () => fail(badRequest('request.error.too_many_fields', 'Too many form fields')));
    parser.on('partsLimit', () => fail(badRequest('request.error.too_many_parts', 'Too many form parts')));
    parser.on('error', () => fail(invalidMultipart()));
    parser.on('close', () => {
      if (failed) return;
      Promise.all(pendingWrites).then(
        () => (failed ? undefined : resolve({ files, fields })),
        (err) => fail(isStorageUnavailable(err) ? storageUnavailable() : new AppError(500, 'file.error.write_failed', 'Could not store the upload')),
      );
    });

    const flow = body.stream((chunk, isLast) => {
      if (failed) return true;
      const ok = chunk.length ? parser.write(chunk) : true;
      if (isLast) parser.end();
      return ok;
    }, fail);
    parser.on('drain', () => flow.resume());
  });
}

const invalidMultipart = () =>
  badRequest('request.error.invalid_multipart', 'Malformed multipart/form-data body', { field: 'body', constraint: 'a complete multipart/form-data body' });

export function removeTemporaryFiles(files: UploadedFile[]): void {
  for (const f of files) fs.rm(f.path, { force: true }, () => undefined);
}
