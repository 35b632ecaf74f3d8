package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/debredist/debredist/debredist"
)

var manCmd = &command{
	name:    "man",
	args:    "",
	summary: "print the manual page (roff)",
	help: `Prints debredist(1) in roff, made from the same text as --help: every command
with its flags and examples, the exit status, the environment and the files.`,
	example: `debredist man > debredist.1 && man ./debredist.1
debredist man | gzip > ~/.local/share/man/man1/debredist.1.gz`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		return func(args []string) error {
			if err := noArgs(args); err != nil {
				return err
			}
			return writeManPage(a, a.stdout)
		}
	},
}

// roff escapes text for a roff line: backslashes, and a leading '.' or '\”.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	var b strings.Builder
	for _, r := range s {
		if r > 0x7e {
			fmt.Fprintf(&b, `\[u%04X]`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffText writes paragraphs: blank lines separate them; lines indented in
// the source stay as they are (.nf).
func roffText(b *bytes.Buffer, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		b.WriteString(".PP\n")
		lines := strings.Split(para, "\n")
		for _, l := range lines {
			if strings.HasPrefix(l, "  ") {
				b.WriteString(".nf\n" + roff(strings.TrimSpace(l)) + "\n.fi\n")
				continue
			}
			b.WriteString(roff(l) + "\n")
		}
	}
}

func writeManPage(a *app, w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, ".TH DEBREDIST 1 %q \"debredist %s\" \"User Commands\"\n", buildDate(), debredist.Version)
	b.WriteString(".SH NAME\ndebredist \\- turn NVIDIA Jetson (L4T) .deb packages into CUDA redistributables\n")
	b.WriteString(
		".SH SYNOPSIS\n.B debredist\n[\\fB\\-v\\fR|\\fB\\-\\-quiet\\fR] \\fIcommand\\fR [\\fIflags\\fR] [\\fIargs\\fR]\n",
	)
	b.WriteString(".SH DESCRIPTION\n")
	roffText(&b, `debredist reads the Jetson apt indexes of an L4T suite, selects a JetPack release's
debs, fetches them into a verified content-addressed cache and builds NVIDIA-style CUDA
redistributables from them: one .tar.xz archive per component in NVIDIA's layout, and
redistrib_<label>.json manifests in NVIDIA's schema, byte-reproducibly. nixpkgs' CUDA
builder, NVIDIA's scripts and other redist consumers use the output like NVIDIA's own.`)
	b.WriteString(".SH COMMANDS\n")
	names := make([]string, 0, len(commands))
	for _, c := range commands {
		names = append(names, c.name)
	}
	sort.Strings(names)
	for _, n := range names {
		c := lookup(n)
		fmt.Fprintf(&b, ".SS \"%s %s\"\n", roff(c.name), roff(c.args))
		roffText(&b, c.help)
		fs := newFlagSet("debredist " + c.name)
		a.globalFlags(fs, c)
		c.flags(a, fs)
		short := map[string]string{}
		for s, l := range fs.aliases {
			short[l] = s
		}
		fs.visible(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			name := `\fB\-\-` + roff(f.Name) + `\fR`
			if s := short[f.Name]; s != "" {
				name = `\fB\-` + roff(s) + `\fR, ` + name
			}
			if typ != "" {
				name += ` \fI` + roff(typ) + `\fR`
			}
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", name, roff(strings.ReplaceAll(usage, "\n", " ")))
		})
		b.WriteString(".PP\nExample:\n.nf\n")
		for _, l := range strings.Split(strings.TrimSpace(c.example), "\n") {
			b.WriteString(roff(strings.TrimSpace(l)) + "\n")
		}
		b.WriteString(".fi\n")
	}
	b.WriteString(
		".SH GLOBAL FLAGS\nAccepted before the command or among its flags; what they change is listed under each command " +
			"they change anything for.\n",
	)
	b.WriteString(".TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nlog more\n")
	b.WriteString(".TP\n\\fB\\-\\-quiet\\fR\nprint only errors and the warnings a user must act on (each once)\n")
	b.WriteString(
		".SH EXIT STATUS\nEvery command exits with one of these; its error reads \"debredist \\fIcommand\\fR: what " +
			"happened: what to do\".\n",
	)
	for _, e := range exitTable {
		fmt.Fprintf(&b, ".TP\n%d\n%s\n", e.code, roff(e.what))
	}
	b.WriteString(
		".SH ENVIRONMENT\n.TP\n.B DEBREDIST_MIRROR\nthe apt mirror when \\fB\\-\\-mirror\\fR is not given (default " +
			"NVIDIA's repository, https://repo.download.nvidia.com/jetson)\n",
	)
	b.WriteString(".TP\n.B SOURCE_DATE_EPOCH\nevery archive entry's mtime (integer seconds) instead of the release date\n")
	b.WriteString(".TP\n.B XDG_CACHE_HOME\nthe deb and index cache is $XDG_CACHE_HOME/debredist (\\fB\\-\\-cache\\fR)\n")
	b.WriteString(
		".SH FILES\n.TP\n.I OUT/<product>/redist/redistrib_<label>.json\na manifest; its archives are below it\n",
	)
	b.WriteString(".TP\n.I OUT/.debredist/\ngenerations of OUT; OUT/<product> are symbolic links into the current one\n")
	b.WriteString(
		".SH SEE ALSO\nThe README of https://github.com/debredist/debredist and docs/json.md (the \\fB\\-\\-json\\fR " +
			"formats).\n",
	)
	_, err := w.Write(b.Bytes())
	return err
}

// buildDate is the date of the commit the binary was built from (Go
// records it from version control), so that the page is the same on every
// run of one build; "" when the build has no version control stamp.
func buildDate() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" {
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				return t.UTC().Format("2006-01-02")
			}
		}
	}
	return ""
}
