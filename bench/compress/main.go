// Command compress tars and compresses a directory with debredist's
// archive.Write, for bench/compress.sh. It is a benchmark helper, not a tool.
//
//	compress [-workers N] [-zstd] [-preset P] -o OUT DIR
//	compress -make-corpus DIR [-size BYTES]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/debredist/debredist/debredist/entry"
	"github.com/debredist/debredist/internal/archive"
	"github.com/debredist/debredist/internal/testutil"
)

func main() {
	workers := flag.Int("workers", 0, "compression workers (0: GOMAXPROCS)")
	useZstd := flag.Bool("zstd", false, "zstd instead of xz")
	preset := flag.Int("preset", 0, "compression preset (0: default)")
	out := flag.String("o", "", "output archive")
	corpus := flag.String("make-corpus", "", "build a corpus of real binaries in this directory and exit")
	size := flag.Int64("size", 256<<20, "corpus size in bytes (with -make-corpus)")
	flag.Parse()
	if err := run(*corpus, *size, *out, *workers, *preset, *useZstd); err != nil {
		fmt.Fprintln(os.Stderr, "compress:", err)
		os.Exit(1)
	}
}

func run(corpus string, size int64, out string, workers, preset int, useZstd bool) error {
	if corpus != "" {
		return testutil.BinaryCorpus(corpus, size)
	}
	if out == "" || flag.NArg() != 1 {
		return fmt.Errorf("usage: compress [-workers N] [-zstd] [-preset P] -o OUT DIR")
	}
	dir := filepath.Clean(flag.Arg(0))
	entries, err := walk(dir)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	opts := archive.Options{Top: filepath.Base(dir), Workers: workers, Preset: preset}
	if useZstd {
		opts.Compression = archive.Zstd
	}
	res, err := archive.Write(context.Background(), f, entries, opts)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func walk(dir string) ([]archive.Entry, error) {
	var es []archive.Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := archive.Entry{Header: entry.Header{Path: filepath.ToSlash(rel), Mode: fi.Mode()}}
		switch {
		case fi.IsDir():
			e.Type = entry.Dir
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Type = entry.Symlink
			if e.Link, err = os.Readlink(p); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			e.Type, e.Size = entry.Regular, fi.Size()
			e.Open = func() (io.ReadCloser, error) { return os.Open(p) }
		default:
			return fmt.Errorf("%s: unsupported file type %v", p, fi.Mode().Type())
		}
		es = append(es, e)
		return nil
	})
	return es, err
}
