import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_UPLOAD_BYTES } from '@layerline/contracts';
import { refusalBeforeUpload } from './upload-validation.ts';

describe('refusalBeforeUpload', () => {
  it('accepts STL, 3MF and OBJ in any letter case', () => {
    expect(refusalBeforeUpload({ name: 'cube.stl', size: 10 })).toBeNull();
    expect(refusalBeforeUpload({ name: 'Benchy.3MF', size: 10 })).toBeNull();
    expect(refusalBeforeUpload({ name: 'a.b.obj', size: 10 })).toBeNull();
  });

  it('refuses other extensions, naming the one it got', () => {
    expect(refusalBeforeUpload({ name: 'photo.png', size: 10 })).toMatch(/STL, 3MF or OBJ.*\.png/);
    expect(refusalBeforeUpload({ name: 'README', size: 10 })).toMatch(/STL, 3MF or OBJ/);
  });

  it('refuses empty files and files over the limit', () => {
    expect(refusalBeforeUpload({ name: 'cube.stl', size: 0 })).toBe('The file is empty.');
    expect(refusalBeforeUpload({ name: 'cube.stl', size: DEFAULT_MAX_UPLOAD_BYTES })).toBeNull();
    expect(refusalBeforeUpload({ name: 'cube.stl', size: DEFAULT_MAX_UPLOAD_BYTES + 1 })).toMatch(
      /limit is 200 MB/,
    );
  });
});
