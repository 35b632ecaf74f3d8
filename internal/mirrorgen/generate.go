package mirrorgen

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
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/ulikunitz/xz"
	"golang.org/x/sync/errgroup"

	"github.com/debredist/debredist/internal/deb/debtest"
)

// MTime is the modification time of every tar entry and ar member of the
// generated debs, and the Date of Release files: 2024-01-01 00:00:00 UTC.
func MTime() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }

// Options selects what Generate writes. The zero value generates nothing
// (no suites); every other field has a useful zero value.
type Options struct {
	// Suites to generate, e.g. "r35.6", "r36.5", "r39.2" (see Suites).
	Suites []string
	// Payload returns the content of a synthetic file (headers, static
	// archives, data). nil means DefaultPayload. Files whose content
	// matters to consumers (pkg-config files, ld.so.conf snippets,
	// copyright, changelog.Debian.gz, EULA.txt, nvcc.profile, the crt
	// headers nixpkgs edits, Python __init__.py, JSON and CMake config
	// files) keep their fixed content; executables and libraries are their
	// ELF fixture, followed by Payload's bytes when they are not
	// DefaultPayload's (so a caller can still change or grow them).
	Payload func(pkg, path string, size int64) []byte
	// SizeOf returns the size passed to Payload. nil means DefaultSizeOf
	// (tens to hundreds of bytes).
	SizeOf func(pkg, path string) int64
	// Only selects packages; nil means the default selection: in the common
	// repo every CUDA, cuDNN and TensorRT package (by Source), the
	// meta-packages and three non-CUDA packages as noise; in the SoC repo
	// (t234 or som) a few nvidia-l4t-* driver debs.
	Only func(repo, pkg string) bool
	// UseDpkgDeb builds the debs with the real `dpkg-deb --build` instead of
	// debtest (for cross-checks; slower, and byte-stable only for one
	// dpkg version).
	UseDpkgDeb bool
	// Indexes lists the index files to write per repo and suite, from
	// "Packages", "Packages.gz", "Packages.xz" and "Release" (an unsigned
	// Release file with the hashes of the others). nil means all four:
	// debredist refuses an index no Release lists unless told to.
	Indexes []string
	// Jobs bounds the number of debs built concurrently; 0 means GOMAXPROCS.
	// The output does not depend on it.
	Jobs int
	// Compress compresses the control.tar and data.tar members of a deb:
	// kind is the package's compression ("xz", "gzip", "zstd" or "none"),
	// suffix the member name's (".xz", ".gz", ".zst" or ""). It is called
	// concurrently (see Jobs) and must be deterministic for Generate to be.
	// nil means the package function Compress. It cannot be combined with
	// UseDpkgDeb, which compresses with dpkg-deb.
	Compress func(kind string, b []byte) (suffix string, out []byte, err error)
}

var knownIndexes = map[string]bool{"Packages": true, "Packages.gz": true, "Packages.xz": true, "Release": true}

func (o Options) payload() func(string, string, int64) []byte {
	if o.Payload != nil {
		return o.Payload
	}
	return DefaultPayload
}

func (o Options) compress() func(string, []byte) (string, []byte, error) {
	if o.Compress != nil {
		return o.Compress
	}
	return Compress
}

func (o Options) sizeOf() func(string, string) int64 {
	if o.SizeOf != nil {
		return o.SizeOf
	}
	return DefaultSizeOf
}

// Files returns the in-deb file list mirrorgen uses for one package with the
// default payloads: every entry of data.tar in order (as dpkg-deb orders
// them: directories and files sorted by path, then symlinks sorted by path),
// including the parent directories but not "./", with bodies for regular
// files.
func Files(suite, repo, pkg string) ([]debtest.File, error) {
	s, err := loadSuite(suite)
	if err != nil {
		return nil, err
	}
	pi, err := s.info(repo, pkg)
	if err != nil {
		return nil, err
	}
	return pi.build().files(DefaultPayload, DefaultSizeOf), nil
}

// DefaultSelection returns, sorted, the packages of a suite's repo that
// Generate writes when Options.Only is nil (repo "common", or the SoC repo
// "t234"/"som"). It lets an Only function extend the default selection.
func DefaultSelection(suite, repo string) ([]string, error) {
	s, err := loadSuite(suite)
	if err != nil {
		return nil, err
	}
	return s.selection(repo, Options{}), nil
}

// built is one generated deb.
type built struct {
	pi    *pkgInfo
	path  string // output path relative to the mirror root, slash-separated
	deb   []byte
	field []field // control fields
}

// Generate writes <dir>/<repo>/dists/<suite>/main/binary-arm64/Packages{,.gz,.xz}
// and <dir>/<repo>/<Filename> for every selected package of every suite's
// repos. Deterministic: the same Options give the same bytes (fixed mtimes,
// sorted order, deterministic compression). Files already in dir are
// overwritten; other files are left alone.
func Generate(ctx context.Context, dir string, opts Options) error {
	indexes := opts.Indexes
	if indexes == nil {
		indexes = []string{"Packages", "Packages.gz", "Packages.xz", "Release"}
	}
	for _, ix := range indexes {
		if !knownIndexes[ix] {
			return fmt.Errorf("mirrorgen: unknown index file %q (want Packages, Packages.gz, Packages.xz or Release)", ix)
		}
	}
	if opts.UseDpkgDeb && opts.Compress != nil {
		return fmt.Errorf("mirrorgen: Options.Compress and UseDpkgDeb are exclusive (dpkg-deb compresses the members)")
	}
	type owner struct {
		suite string
		sum   [32]byte
	}
	written := map[string]owner{}
	for _, name := range opts.Suites {
		s, err := loadSuite(name)
		if err != nil {
			return err
		}
		repos := make([]string, 0, len(s.repos))
		for r := range s.repos {
			repos = append(repos, r)
		}
		sort.Strings(repos)
		for _, repo := range repos {
			debs, err := s.buildRepo(ctx, repo, opts)
			if err != nil {
				return err
			}
			for _, b := range debs {
				sum := sha256.Sum256(b.deb)
				if o, ok := written[b.path]; ok {
					if o.sum != sum {
						return &ConflictError{Path: b.path, Suites: [2]string{o.suite, s.name}}
					}
					continue
				}
				written[b.path] = owner{s.name, sum}
				if err := writeFile(filepath.Join(dir, filepath.FromSlash(b.path)), b.deb); err != nil {
					return err
				}
			}
			if err := s.writeIndexes(dir, repo, debs, indexes); err != nil {
				return err
			}
		}
	}
	return nil
}

// selection returns the sorted package names of a repo that opts selects.
func (s *suite) selection(repo string, opts Options) []string {
	var def map[string]bool
	if opts.Only == nil {
		def = s.defaultSelection(repo)
	}
	var names []string
	for p := range s.repos[repo] {
		if (opts.Only == nil && def[p]) || (opts.Only != nil && opts.Only(repo, p)) {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	return names
}

func (s *suite) buildRepo(ctx context.Context, repo string, opts Options) ([]built, error) {
	names := s.selection(repo, opts)
	out := make([]built, len(names))
	g, gctx := errgroup.WithContext(ctx)
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	g.SetLimit(jobs)
	for i, name := range names {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			pi, err := s.info(repo, name)
			if err != nil {
				return err
			}
			rel, err := poolPath(repo, pi.e.Filename)
			if err != nil {
				return fmt.Errorf("mirrorgen: suite %s package %s: %w", s.name, name, err)
			}
			fields, deb, err := pi.buildDeb(gctx, opts)
			if err != nil {
				return fmt.Errorf("mirrorgen: suite %s repo %s package %s: %w", s.name, repo, name, err)
			}
			out[i] = built{pi: pi, path: rel, deb: deb, field: fields}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// poolPath validates an inventory Filename and returns repo/Filename.
func poolPath(repo, filename string) (string, error) {
	clean := path.Clean(filename)
	if clean != filename || path.IsAbs(clean) || strings.HasPrefix(clean, "../") || clean == ".." ||
		!strings.HasSuffix(clean, ".deb") {
		return "", fmt.Errorf("unsafe Filename %q", filename)
	}
	return repo + "/" + clean, nil
}

// buildDeb returns the control fields and bytes of the package's deb.
func (pi *pkgInfo) buildDeb(ctx context.Context, opts Options) ([]field, []byte, error) {
	files := pi.build().files(opts.payload(), opts.sizeOf())
	fields := pi.controlFields(files)
	control := formatFields(fields)
	md5sums := md5Sums(files)
	if opts.UseDpkgDeb {
		deb, err := dpkgDebBuild(ctx, control, md5sums, files, pi.compression())
		return fields, deb, err
	}
	d := debtest.Deb{
		Control:      control,
		ControlFiles: map[string][]byte{"md5sums": md5sums},
		Files:        files,
		AddParents:   true,
		MTime:        MTime(),
	}
	// debtest lays out the tars and the ar archive; mirrorgen compresses the
	// members itself (Options.Compress, by default Compress).
	ctar, err := d.ControlTar(MTime())
	if err != nil {
		return nil, nil, err
	}
	dtar, err := d.BuildDataTar()
	if err != nil {
		return nil, nil, err
	}
	comp, compress := pi.compression(), opts.compress()
	csuf, cmem, err := compress(comp, ctar)
	if err != nil {
		return nil, nil, fmt.Errorf("control.tar: %w", err)
	}
	dsuf, dmem, err := compress(comp, dtar)
	if err != nil {
		return nil, nil, fmt.Errorf("data.tar: %w", err)
	}
	d.ControlMember, d.ControlName = cmem, "control.tar"+csuf
	d.DataMember, d.DataName = dmem, "data.tar"+dsuf
	deb, err := debtest.Build(d)
	return fields, deb, err
}

func md5Sums(files []debtest.File) []byte {
	var b bytes.Buffer
	for _, f := range files {
		if f.Type == tar.TypeReg {
			sum := md5.Sum(f.Body)
			fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), f.Name)
		}
	}
	return b.Bytes()
}

// dpkgDebBuild materialises the tree in a temporary directory and runs
// dpkg-deb --build on it.
func dpkgDebBuild(
	ctx context.Context,
	control string,
	md5sums []byte,
	files []debtest.File,
	comp string,
) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "mirrorgen-dpkg-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	root := filepath.Join(tmp, "root")
	if err := os.MkdirAll(filepath.Join(root, "DEBIAN"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "DEBIAN", "control"), []byte(control), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "DEBIAN", "md5sums"), md5sums, 0o644); err != nil {
		return nil, err
	}
	var dirs []debtest.File
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		switch f.Type {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return nil, err
			}
			dirs = append(dirs, f)
		case tar.TypeSymlink:
			if err := os.Symlink(f.Linkname, p); err != nil {
				return nil, err
			}
		case tar.TypeReg:
			if err := os.WriteFile(p, f.Body, 0o644); err != nil {
				return nil, err
			}
			if err := os.Chmod(p, os.FileMode(f.Mode)); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("dpkg-deb path: unsupported entry type %q for %s", f.Type, f.Name)
		}
	}
	for _, d := range dirs {
		if err := os.Chmod(filepath.Join(root, filepath.FromSlash(d.Name)), os.FileMode(d.Mode)); err != nil {
			return nil, err
		}
	}
	out := filepath.Join(tmp, "out.deb")
	cmd := exec.CommandContext(ctx, "dpkg-deb", "--root-owner-group", "-Z"+comp, "--build", root, out)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.FormatInt(MTime().Unix(), 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dpkg-deb --build: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return os.ReadFile(out)
}

// stanza returns the Packages index stanza of a built deb, in the field
// order dpkg-scanpackages writes.
func (b built) stanza() string {
	md5sum := md5.Sum(b.deb)
	sha1sum := sha1.Sum(b.deb)
	sha256sum := sha256.Sum256(b.deb)
	idx := []field{}
	for _, f := range b.field {
		if f.name == "Section" {
			idx = append(idx,
				field{"Filename", strings.SplitN(b.path, "/", 2)[1]},
				field{"Size", strconv.Itoa(len(b.deb))},
				field{"MD5sum", hex.EncodeToString(md5sum[:])},
				field{"SHA1", hex.EncodeToString(sha1sum[:])},
				field{"SHA256", hex.EncodeToString(sha256sum[:])},
			)
		}
		idx = append(idx, f)
	}
	return formatFields(idx)
}

// PackagesIndex renders the stanzas of debs, separated by blank lines.
func packagesIndex(debs []built) []byte {
	var b bytes.Buffer
	for i, d := range debs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.stanza())
	}
	return b.Bytes()
}

func (s *suite) writeIndexes(dir, repo string, debs []built, indexes []string) error {
	plain := packagesIndex(debs)
	rel := repo + "/dists/" + s.name + "/main/binary-arm64/"
	content := map[string][]byte{"Packages": plain}
	var gz bytes.Buffer
	gw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return err
	}
	gw.Write(plain) //nolint:errcheck // bytes.Buffer
	if err := gw.Close(); err != nil {
		return fmt.Errorf("mirrorgen: %sPackages.gz: %w", rel, err)
	}
	content["Packages.gz"] = gz.Bytes()
	var xzb bytes.Buffer
	xw, err := xz.WriterConfig{}.NewWriter(&xzb)
	if err != nil {
		return err
	}
	xw.Write(plain) //nolint:errcheck // bytes.Buffer
	if err := xw.Close(); err != nil {
		return fmt.Errorf("mirrorgen: %sPackages.xz: %w", rel, err)
	}
	content["Packages.xz"] = xzb.Bytes()

	var release []string
	for _, ix := range indexes {
		if ix == "Release" {
			continue
		}
		release = append(release, ix)
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(rel+ix)), content[ix]); err != nil {
			return err
		}
	}
	for _, ix := range indexes {
		if ix == "Release" {
			r := s.release(repo, release, content)
			if err := writeFile(filepath.Join(dir, filepath.FromSlash(repo+"/dists/"+s.name+"/Release")), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// release renders an unsigned Release file listing the written indexes.
func (s *suite) release(repo string, names []string, content map[string][]byte) []byte {
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(
		&b,
		"Origin: NVIDIA\nLabel: NVIDIA Jetson %s (mirrorgen)\nSuite: %s\nCodename: %s\nDate: %s\nArchitectures: arm64\n"+
			"Components: main\nDescription: Synthetic NVIDIA Jetson %s %s repository generated by debredist mirrorgen\n",
		repo,
		s.name,
		s.name,
		MTime().Format(time.RFC1123),
		repo,
		s.name,
	)
	for _, h := range []struct {
		name string
		sum  func([]byte) string
	}{
		{"MD5Sum", func(p []byte) string { x := md5.Sum(p); return hex.EncodeToString(x[:]) }},
		{"SHA1", func(p []byte) string { x := sha1.Sum(p); return hex.EncodeToString(x[:]) }},
		{"SHA256", func(p []byte) string { x := sha256.Sum256(p); return hex.EncodeToString(x[:]) }},
	} {
		b.WriteString(h.name + ":\n")
		for _, n := range names {
			fmt.Fprintf(&b, " %s %8d main/binary-arm64/%s\n", h.sum(content[n]), len(content[n]), n)
		}
	}
	return []byte(b.String())
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("mirrorgen: %w", err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("mirrorgen: %w", err)
	}
	return nil
}
