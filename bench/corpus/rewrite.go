package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/internal/deb/debtest"
	"github.com/debredist/debredist/internal/mirrorgen"
)

// Writing the mirror in two passes keeps mirrorgen's package shapes (names,
// versions, control fields, file lists, index formats) while the big
// payloads are compressed fast:
//
//  1. mirrorgen.Generate with its small default payloads (seconds), noting
//     which files take a payload;
//  2. every deb rebuilt with the corpus payloads: the same control fields
//     (Installed-Size recomputed) and md5sums, the same tar layout
//     (debtest, as mirrorgen), the members compressed by a compressor, then
//     the Packages stanzas (Installed-Size, Size and hashes), Packages.gz,
//     Packages.xz and Release rewritten.
//
// With mirrorgen's own compressors pass 2 gives exactly Generate's bytes
// with the same payloads (TestTwoPassMatchesGenerate), so the only
// difference of the corpus is the member compression.

// compressor compresses a deb member of the given kind ("xz", "gzip",
// "zstd", "none" as mirrorgen chooses them) and returns its name suffix.
type compressor func(kind string, b []byte) (string, []byte, error)

// fastCompress: xz with xzFast, gzip and zstd at their fastest levels.
func fastCompress(kind string, b []byte) (string, []byte, error) {
	var buf bytes.Buffer
	switch kind {
	case "xz":
		return ".xz", xzFast(b), nil
	case "gzip":
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		w.Write(b) //nolint:errcheck // bytes.Buffer
		if err := w.Close(); err != nil {
			return "", nil, err
		}
		return ".gz", buf.Bytes(), nil
	case "zstd":
		w, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true),
			zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20))
		if err != nil {
			return "", nil, err
		}
		w.Write(b) //nolint:errcheck // bytes.Buffer
		if err := w.Close(); err != nil {
			return "", nil, err
		}
		return ".zst", buf.Bytes(), nil
	case "none":
		return "", b, nil
	}
	return "", nil, fmt.Errorf("unsupported compression %q", kind)
}

// payloadFiles records the (package, path) keys that mirrorgen asks a
// payload for in pass 1.
type payloadFiles struct {
	sync.Mutex
	keys map[string]bool
}

func (r *payloadFiles) record(pkg, p string, size int64) []byte {
	r.Lock()
	r.keys[pkg+"\x00"+p] = true
	r.Unlock()
	return mirrorgen.DefaultPayload(pkg, p, size)
}

func (r *payloadFiles) has(pkg, p string) bool {
	r.Lock()
	defer r.Unlock()
	return r.keys[pkg+"\x00"+p]
}

// generate writes the mirror of suite in dir with the payloads pay/sizeOf,
// the members compressed by comp (see the comment at the top).
func generate(ctx context.Context, dir string, pay func(pkg, p string, size int64) []byte,
	sizeOf func(pkg, p string) int64, jobs int, comp compressor) error {
	rec := &payloadFiles{keys: map[string]bool{}}
	err := mirrorgen.Generate(ctx, dir, mirrorgen.Options{
		Suites:  []string{suite},
		Payload: rec.record,
		SizeOf:  mirrorgen.DefaultSizeOf,
		Jobs:    jobs,
		Indexes: []string{"Packages", "Packages.gz", "Packages.xz", "Release"},
	})
	if err != nil {
		return err
	}
	for _, repo := range []string{"common", "t234"} {
		if err := rewriteRepo(ctx, dir, repo, rec, pay, sizeOf, jobs, comp); err != nil {
			return fmt.Errorf("%s: %w", repo, err)
		}
	}
	return nil
}

func rewriteRepo(ctx context.Context, dir, repo string, rec *payloadFiles, pay func(pkg, p string, size int64) []byte,
	sizeOf func(pkg, p string) int64, jobs int, comp compressor) error {
	rel := repo + "/dists/" + suite + "/main/binary-arm64/"
	plain, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel+"Packages")))
	if err != nil {
		return err
	}
	stanzas := strings.Split(strings.TrimSuffix(string(plain), "\n"), "\n\n")
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, st := range stanzas {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			ns, err := rebuildDeb(dir, repo, st+"\n", rec, pay, sizeOf, comp)
			if err != nil {
				return err
			}
			stanzas[i] = strings.TrimSuffix(ns, "\n")
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	plain = []byte(strings.Join(stanzas, "\n\n") + "\n")
	var gz bytes.Buffer
	gw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	gw.Write(plain) //nolint:errcheck // bytes.Buffer
	if err := gw.Close(); err != nil {
		return err
	}
	var xzb bytes.Buffer
	xw, err := xz.WriterConfig{}.NewWriter(&xzb)
	if err != nil {
		return err
	}
	xw.Write(plain) //nolint:errcheck // bytes.Buffer
	if err := xw.Close(); err != nil {
		return err
	}
	content := map[string][]byte{"Packages": plain, "Packages.gz": gz.Bytes(), "Packages.xz": xzb.Bytes()}
	for _, n := range slicesSorted(content) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel+n)), content[n], 0o644); err != nil {
			return err
		}
	}
	relPath := filepath.Join(dir, filepath.FromSlash(repo+"/dists/"+suite+"/Release"))
	release, err := os.ReadFile(relPath)
	if err != nil {
		return err
	}
	return os.WriteFile(relPath, patchRelease(release, content), 0o644)
}

func slicesSorted[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// patchRelease rewrites the checksum lines of a Release file
// (" <hash> <size> main/binary-arm64/<name>") for the new index contents.
func patchRelease(release []byte, content map[string][]byte) []byte {
	lines := strings.Split(string(release), "\n")
	sum := func(string, []byte) string { return "" }
	for i, l := range lines {
		switch l {
		case "MD5Sum:":
			sum = func(_ string, p []byte) string { x := md5.Sum(p); return hex.EncodeToString(x[:]) }
			continue
		case "SHA1:":
			sum = func(_ string, p []byte) string { x := sha1.Sum(p); return hex.EncodeToString(x[:]) }
			continue
		case "SHA256:":
			sum = func(_ string, p []byte) string { x := sha256.Sum256(p); return hex.EncodeToString(x[:]) }
			continue
		}
		f := strings.Fields(l)
		if !strings.HasPrefix(l, " ") || len(f) != 3 {
			continue
		}
		name := strings.TrimPrefix(f[2], "main/binary-arm64/")
		if c, ok := content[name]; ok {
			lines[i] = fmt.Sprintf(" %s %8d %s", sum(name, c), len(c), f[2])
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// stanzaField returns the value of a single-line field of a stanza.
func stanzaField(st, name string) string {
	for _, l := range strings.Split(st, "\n") {
		if v, ok := strings.CutPrefix(l, name+": "); ok {
			return v
		}
	}
	return ""
}

// setFields replaces the values of single-line fields (and drops those
// mapped to "\x00").
func setFields(st string, vals map[string]string) string {
	lines := strings.Split(st, "\n")
	out := lines[:0]
	for _, l := range lines {
		name, _, ok := strings.Cut(l, ": ")
		if v, hit := vals[name]; ok && !strings.HasPrefix(l, " ") && hit {
			if v == "\x00" {
				continue
			}
			l = name + ": " + v
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// memberKind returns the compression of a deb's data member from its ar
// member names ("xz", "gzip", "zstd" or "none").
func memberKind(deb []byte) (string, error) {
	const magic = "!<arch>\n"
	if !bytes.HasPrefix(deb, []byte(magic)) {
		return "", fmt.Errorf("not an ar archive")
	}
	for off := len(magic); off+60 <= len(deb); {
		name := strings.TrimRight(strings.TrimSpace(string(deb[off:off+16])), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(deb[off+48 : off+58])))
		if err != nil {
			return "", fmt.Errorf("ar member size: %w", err)
		}
		switch name {
		case "data.tar.xz":
			return "xz", nil
		case "data.tar.gz":
			return "gzip", nil
		case "data.tar.zst":
			return "zstd", nil
		case "data.tar":
			return "none", nil
		}
		off += 60 + size + size%2
	}
	return "", fmt.Errorf("no data member")
}

// rebuildDeb rebuilds the deb of one Packages stanza with the corpus
// payloads and returns its new stanza.
func rebuildDeb(dir, repo, st string, rec *payloadFiles, pay func(pkg, p string, size int64) []byte,
	sizeOf func(pkg, p string) int64, comp compressor) (string, error) {
	pkg := stanzaField(st, "Package")
	debPath := filepath.Join(dir, repo, filepath.FromSlash(stanzaField(st, "Filename")))
	old, err := os.ReadFile(debPath)
	if err != nil {
		return "", err
	}
	kind, err := memberKind(old)
	if err != nil {
		return "", fmt.Errorf("%s: %w", debPath, err)
	}
	files, err := mirrorgen.Files(suite, repo, pkg)
	if err != nil {
		return "", err
	}
	for i, f := range files {
		if f.Type != tar.TypeReg || !rec.has(pkg, f.Name) {
			continue
		}
		def := mirrorgen.DefaultPayload(pkg, f.Name, mirrorgen.DefaultSizeOf(pkg, f.Name))
		body := pay(pkg, f.Name, sizeOf(pkg, f.Name))
		switch {
		case bytes.Equal(f.Body, def): // a payload file
			files[i].Body = body
		case !bytes.Equal(body, def): // an ELF fixture followed by the payload
			files[i].Body = append(append([]byte(nil), f.Body...), body...)
		}
	}
	var md5sums bytes.Buffer
	for _, f := range files {
		if f.Type == tar.TypeReg {
			s := md5.Sum(f.Body)
			fmt.Fprintf(&md5sums, "%s  %s\n", hex.EncodeToString(s[:]), f.Name)
		}
	}
	isz := strconv.FormatInt(mirrorgen.InstalledSize(files), 10)
	control := setFields(st, map[string]string{"Filename": "\x00", "Size": "\x00", "MD5sum": "\x00",
		"SHA1": "\x00", "SHA256": "\x00", "Installed-Size": isz})
	d := debtest.Deb{
		Control:      control,
		ControlFiles: map[string][]byte{"md5sums": md5sums.Bytes()},
		Files:        files,
		AddParents:   true,
		MTime:        mirrorgen.MTime(),
	}
	ctar, err := d.ControlTar(mirrorgen.MTime())
	if err != nil {
		return "", err
	}
	dtar, err := d.BuildDataTar()
	if err != nil {
		return "", err
	}
	csuf, cmem, err := comp(kind, ctar)
	if err != nil {
		return "", fmt.Errorf("%s: control.tar: %w", pkg, err)
	}
	dsuf, dmem, err := comp(kind, dtar)
	if err != nil {
		return "", fmt.Errorf("%s: data.tar: %w", pkg, err)
	}
	d.ControlMember, d.ControlName = cmem, "control.tar"+csuf
	d.DataMember, d.DataName = dmem, "data.tar"+dsuf
	deb, err := debtest.Build(d)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(debPath, deb, 0o644); err != nil {
		return "", err
	}
	m, s1, s2 := md5.Sum(deb), sha1.Sum(deb), sha256.Sum256(deb)
	return setFields(st, map[string]string{"Installed-Size": isz, "Size": strconv.Itoa(len(deb)),
		"MD5sum": hex.EncodeToString(m[:]), "SHA1": hex.EncodeToString(s1[:]), "SHA256": hex.EncodeToString(s2[:])}), nil
}
