package shop

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A second start reuses the file: nothing is seeded again, and a change
// made before is still there.
func TestOpenReusesTheFile(t *testing.T) {
	t.Parallel()
	db, path := openTest(t)
	if _, err := db.ExecContext(t.Context(), "UPDATE products SET stock = 4242 WHERE sku = 'TEA-001'"); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	var progress bytes.Buffer
	again, err := Open(t.Context(), path, &progress)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if progress.Len() != 0 {
		t.Errorf("second open wrote %q; it should not seed", progress.String())
	}
	if n := count(t, again, "SELECT stock FROM products WHERE sku = 'TEA-001'"); n != 4242 {
		t.Errorf("stock after reopening = %d, want the 4242 written before", n)
	}
}

// The first start says that it seeds, and leaves no temporary file.
func TestOpenSeedsWithProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "shop.db")
	var progress bytes.Buffer
	db, err := Open(t.Context(), path, &progress)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if !strings.Contains(progress.String(), "creating the shop database "+path) || !strings.Contains(progress.String(), "seeded in") {
		t.Errorf("progress = %q", progress.String())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".seeding-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// A file that is not a shop database of this version is refused with a
// clear error and left byte for byte as it was.
func TestOpenRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	otherSQLite := func(t *testing.T, path string, pragma string) {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(t.Context(), "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'keep me');"+pragma); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, want string
		make       func(t *testing.T, path string)
	}{
		{"text file", "cannot be read as SQLite", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not a database\n"), 400), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty file", "is empty", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another program's database", "another program's SQLite database", func(t *testing.T, path string) {
			otherSQLite(t, path, "")
		}},
		{"an older schema", "has schema version 7 and this demo needs 1", func(t *testing.T, path string) {
			otherSQLite(t, path, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 7;", applicationID))
		}},
		{"a directory", "not a regular file", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "shop.db")
			tt.make(t, path)
			before := snapshot(t, path)
			db, err := Open(t.Context(), path, io.Discard)
			if err == nil {
				_ = db.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, ErrNotShopDatabase) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v; want ErrNotShopDatabase naming the file and saying %q", err, tt.want)
			}
			if after := snapshot(t, path); after != before {
				t.Error("the file was changed")
			}
		})
	}
}

// snapshot returns a file's bytes, or "dir" for a directory.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "dir"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A path holding what an SQLite URI gives a meaning to (%, ?, #, a
// leading //) is the file that is created and reopened: nothing is seeded
// under another name, and nothing but the database and its WAL files is
// left in the directory.
func TestOpenPathsWithURICharacters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x%41.db", "a?b.db", "c#d.db", "%2e%2e.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			if name == "x%41.db" {
				path = "/" + path // //tmp/... names an authority in a URI
			}
			for range 2 {
				db, err := Open(t.Context(), path, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				if n := count(t, db, "SELECT COUNT(*) FROM products"); n != 60 {
					t.Errorf("%d products, want 60", n)
				}
				_ = db.Close()
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if base := strings.TrimSuffix(strings.TrimSuffix(e.Name(), "-wal"), "-shm"); base != name {
					t.Errorf("%s left in the directory", e.Name())
				}
			}
		})
	}
}

// A symbolic link to nothing is refused with a sentence saying so, before
// anything is seeded.
func TestOpenRefusesADanglingLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.db")
	if err := os.Symlink(filepath.Join(dir, "gone", "shop.db"), path); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	db, err := Open(t.Context(), path, &progress)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open succeeded")
	}
	if want := path + " is a symbolic link to " + filepath.Join(dir, "gone", "shop.db") + ", which does not exist"; !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v; want it to say %q", err, want)
	}
	if progress.Len() != 0 {
		t.Errorf("it seeded first: %q", progress.String())
	}
}

// A start after one killed while seeding removes what that one left, once
// it is old enough not to be another start seeding now: the next first
// start, and a warm start too, since a later start may have seeded.
func TestOpenRemovesStaleSeedingFiles(t *testing.T) {
	t.Parallel()
	t.Run("first start", func(t *testing.T) {
		t.Parallel()
		testRemovesStaleSeeds(t, filepath.Join(t.TempDir(), "shop.db"))
	})
	t.Run("warm start", func(t *testing.T) {
		t.Parallel()
		db, path := openTest(t)
		_ = db.Close()
		testRemovesStaleSeeds(t, path)
	})
}

func testRemovesStaleSeeds(t *testing.T, path string) {
	stale := []string{path + ".seeding-1", path + ".seeding-1-journal"}
	fresh := path + ".seeding-2"
	old := time.Now().Add(-time.Hour)
	for _, f := range append(stale, fresh) {
		if err := os.WriteFile(f, []byte("half a seed"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range stale {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(t.Context(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	for _, f := range stale {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh seeding file, maybe another start's, was removed: %v", err)
	}
}

// A shop database this process may not write is refused with a sentence
// saying so, not taken for a file that is not SQLite, and not served until
// the first order fails. As root, permissions do not stop a write, so the
// file is made immutable instead.
func TestOpenRefusesAReadOnlyFile(t *testing.T) {
	t.Parallel()
	_, path := openTest(t)
	if os.Geteuid() == 0 {
		if out, err := exec.CommandContext(t.Context(), "chattr", "+i", path).CombinedOutput(); err != nil {
			t.Skipf("root cannot be stopped from writing without chattr +i: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	} else if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path, io.Discard)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open succeeded")
	}
	if want := path + " cannot be written"; !strings.Contains(err.Error(), want) || errors.Is(err, ErrNotShopDatabase) {
		t.Errorf("Open: %v; want it to say %q, and not ErrNotShopDatabase", err, want)
	}
}
