import { describe, expect, it } from 'vitest';
import { domErrorName, WorkspaceError } from '../../lib/workspace/errors';
import { asWorkspaceError } from '../../lib/workspace/workspace';

const dom = (name: string, message = 'details') => new DOMException(message, name);

describe('asWorkspaceError', () => {
  it.each([
    ['QuotaExceededError', 'quota_exceeded', 'storage quota is used up'],
    ['NoModificationAllowedError', 'busy', 'another writer has it locked'],
    ['NotFoundError', 'not_found', 'opfs_list'],
    ['SecurityError', 'unsupported', 'private window'],
    ['InvalidStateError', 'io', 'InvalidStateError: details'],
  ])('%s → %s', (name, code, text) => {
    const error = asWorkspaceError(dom(name), 'write', '/a.txt');
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.code).toBe(code);
    expect(error.message).toContain(text);
    expect(error.cause).toBeInstanceOf(DOMException);
  });

  it('maps a TypeError (a name the browser refused) to invalid_path', () => {
    expect(asWorkspaceError(new TypeError('Name is not allowed.'), 'read', '/x').code).toBe('invalid_path');
  });

  it('passes a WorkspaceError through', () => {
    const original = new WorkspaceError('not_found', 'm');
    expect(asWorkspaceError(original, 'list', '/')).toBe(original);
  });

  it('domErrorName', () => {
    expect(domErrorName(dom('QuotaExceededError'))).toBe('QuotaExceededError');
    expect(domErrorName('text')).toBe('');
    expect(domErrorName(null)).toBe('');
  });
});
