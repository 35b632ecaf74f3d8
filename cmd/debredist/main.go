package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/debredist/outdir"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130 // SIGINT/SIGTERM: the run was cancelled and cleaned up
)

func main() {
	setMemoryLimit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal the library cleans up; a second one
		// kills the process the default way, and so does the end of
		// stopGrace: whatever the run is blocked on, it ends.
		<-ctx.Done()
		stop()
		exitAfter(stopGrace, os.Stderr, os.Exit)
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopGrace is how long a run may take to stop after SIGINT/SIGTERM
// (cancelled work, cleanup) before the process exits anyway.
const stopGrace = 5 * time.Second

// exitAfter exits with exitInterrupted once grace has passed: called
// after the graceful stop was asked for, it bounds it. What an ended
// conversion leaves in OUT is what SIGKILL leaves: the next run repairs it.
func exitAfter(grace time.Duration, stderr io.Writer, exit func(int)) {
	time.Sleep(grace)
	fmt.Fprintf(stderr, "debredist: interrupted, and still not stopped %s later: exiting now\n", grace)
	exit(exitInterrupted)
}

// app is one invocation: where output goes and the global flags.
type app struct {
	ctx            context.Context
	stdout, stderr io.Writer
	verbose, quiet bool
	getenv         func(string) string
	// fromEnv names, per library option whose value this run took from
	// an environment variable ("Source.Mirror"), that variable: an error
	// about the value names the variable, not the flag.
	fromEnv map[fault.Ref]string
	saidMu  sync.Mutex
	said    map[string]bool // warnings and notices printed: each once per run
}

// tookEnv records that the value of the library option came from the
// environment variable env.
func (a *app) tookEnv(option fault.Ref, env string) {
	if a.fromEnv == nil {
		a.fromEnv = map[fault.Ref]string{}
	}
	a.fromEnv[option] = env
}

// firstTime reports whether a warning or note is said for the first time
// in this run (and records it).
func (a *app) firstTime(kind, msg string) bool {
	a.saidMu.Lock()
	defer a.saidMu.Unlock()
	if a.said == nil {
		a.said = map[string]bool{}
	}
	if a.said[kind+": "+msg] {
		return false
	}
	a.said[kind+": "+msg] = true
	return true
}

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string // one line for the command list
	help    string // what it does (paragraphs)
	example string
	// verbose and quiet say what -v and --quiet change for this command
	// (its help lists them so); "" where they change nothing: the flags
	// are accepted there too, and not listed.
	verbose, quiet string
	// flags registers the command's flags and returns the function that
	// runs it with the positional arguments.
	flags func(a *app, fs *flagSet) func(args []string) error
}

// usagef is a bad command line (exit 2): a *fault.UsageError, the one
// usage-error type of the library and the CLI.
func usagef(format string, v ...any) error { return fault.Usagef(format, v...) }

// words are the CLI's words for what the library's messages name
// (fault.Ref): the flag that sets an option, the command that runs a call,
// SOURCE_DATE_EPOCH for the entry mtime. Every Ref has one
// (TestEveryRefWorded); the library never words them as the CLI does.
var words = map[fault.Ref]string{
	fault.RefJetPack:              "--jetpack",
	fault.RefL4T:                  "--l4t",
	fault.RefProfileFile:          "--profile",
	fault.RefLockFile:             "--lock",
	fault.RefOut:                  "--out",
	fault.RefJobs:                 "--jobs",
	fault.RefCompression:          "--compress",
	fault.RefPreset:               "--preset",
	fault.RefOnly:                 "--only",
	fault.RefMTime:                "SOURCE_DATE_EPOCH",
	fault.RefLockOut:              "--lock-out",
	fault.RefSBOM:                 "--sbom",
	fault.RefAllowWarnings:        "--allow-warning",
	fault.RefFailOnWarnings:       "--fail-on-warnings",
	fault.RefAllowNonEmptyOut:     "--allow-nonempty-out",
	fault.RefMirror:               "--mirror",
	fault.RefCacheDir:             "--cache",
	fault.RefOffline:              "--offline",
	fault.RefKeyring:              "--keyring",
	fault.RefAllowUnverifiedIndex: "--allow-unverified-index",
	fault.RefParallelDownloads:    "--downloads",
	fault.RefForce:                "--force",
	fault.RefNixMirror:            "--mirror",
	fault.RefProfiles:             "'debredist profiles'",
	fault.RefFetch:                "`debredist fetch`",
	fault.RefConvert:              "debredist convert",
	fault.RefVerify:               "debredist verify",
	fault.RefNixpkgs:              "debredist verify --nixpkgs",
	fault.RefProfile:              "what 'debredist profiles --json NAME' prints",
}

// cliWord words a Ref as the CLI does.
func cliWord(r fault.Ref) string {
	if w, ok := words[r]; ok {
		return w
	}
	return string(r)
}

// inFlags words a library error in the CLI's flags and commands
// (fault.Render: the Refs it carries as data, never its prose).
func inFlags(err error) string { return fault.Render(err, cliWord) }

// exitError carries an exit code for a failure that was already reported
// (e.g. verify problems, printed one per artifact).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// errHelp means help was printed on request.
var errHelp = errors.New("help requested")

var commands []*command

func init() {
	commands = []*command{
		profilesCmd, indexCmd, extractCmd, planCmd, fetchCmd, convertCmd, verifyCmd, nixCmd, buildArchiveCmd, diffCmd,
		inventoryCmd, sbomCmd, versionCmd, helpCmd,
		completionCmd, manCmd,
	}
}

// unknownCommand says that name is no command, and which one it may
// stand for: one that starts with it, or is at most two edits away.
func unknownCommand(name string) string {
	msg := fmt.Sprintf("unknown command %q", name)
	best, bestDist := "", 3
	for _, c := range commands {
		d := editDistance(name, c.name)
		if len(name) >= 2 && strings.HasPrefix(c.name, name) {
			d = 1
		}
		if d < bestDist {
			best, bestDist = c.name, d
		}
	}
	if best != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return msg
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev = cur
	}
	return prev[len(b)]
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it parses args, runs one command and returns
// the exit code. It never calls os.Exit, so tests run it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr, getenv: os.Getenv, said: map[string]bool{}}
	g := newFlagSet("debredist")
	a.globalFlags(g, nil)
	showVersion := g.Bool("version", false, "print the version and exit")
	pos, err := g.parse(args, true)
	switch {
	case errors.Is(err, errHelp):
		a.topUsage(stdout)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "debredist: %v\n", err)
		fmt.Fprintln(stderr, "Run 'debredist help' for usage.")
		return exitUsage
	case *showVersion:
		return a.exit(versionCmd.flags(a, newFlagSet("version"))(nil), versionCmd, nil)
	case len(pos) == 0:
		a.topUsage(stderr)
		return exitUsage
	}
	cmd := lookup(pos[0])
	if cmd == nil {
		fmt.Fprintf(stderr, "debredist: %s\nRun 'debredist help' for the list of commands.\n", unknownCommand(pos[0]))
		return exitUsage
	}
	if a.verbose && a.quiet {
		return a.exit(usagef("give only one of --verbose and --quiet"), cmd, nil)
	}
	fs := newFlagSet("debredist " + cmd.name)
	a.globalFlags(fs, cmd)
	runCmd := cmd.flags(a, fs)
	cpos, err := fs.parse(pos[1:], false)
	if errors.Is(err, errHelp) {
		a.commandUsage(stdout, cmd, fs)
		return exitOK
	}
	if err == nil && a.verbose && a.quiet {
		err = usagef("give only one of --verbose and --quiet")
	}
	if err != nil {
		return a.exit(err, cmd, fs)
	}
	return a.exit(runCmd(cpos), cmd, fs)
}

// globalFlags registers -v/--verbose and --quiet, accepted before the
// command and among its flags, worded for the command c (nil: before any
// command) and hidden from the help of a command they change nothing for.
func (a *app) globalFlags(fs *flagSet, c *command) {
	verbose, quiet := "log more (what depends on the command: see its help)", "show warnings and errors only"
	if c != nil {
		verbose, quiet = c.verbose, c.quiet
	}
	// The current values are the defaults: flags given before the command
	// stay set when the command's flag set registers them again.
	fs.BoolVar(&a.verbose, "verbose", a.verbose, verbose)
	fs.alias("v", "verbose")
	fs.BoolVar(&a.quiet, "quiet", a.quiet, quiet)
	if verbose == "" {
		fs.hide("verbose")
	}
	if quiet == "" {
		fs.hide("quiet")
	}
}

// exit maps err to an exit code of the table in exitTable, printing it as
// "debredist CMD: what happened: remedy".
func (a *app) exit(err error, cmd *command, fs *flagSet) int {
	if err == nil {
		return exitOK
	}
	say := func(msg string) { fmt.Fprintf(a.stderr, "debredist %s: %s\n", cmd.name, msg) }
	var ue *fault.UsageError
	var nf *fault.NotFoundError
	var ee *exitError
	var noe *outdir.NotOutError
	switch {
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		msg, env := a.usageMessage(err)
		say(msg)
		if ue.File == "" && !env { // the command line's form
			if cmd == helpCmd {
				fmt.Fprintln(a.stderr, "Run 'debredist help' for the list of commands.")
			} else {
				fmt.Fprintf(a.stderr, "Run 'debredist %s --help' for usage.\n", cmd.name)
			}
		}
		return exitUsage
	case errors.As(err, &nf): // a mirror or suite the command line names is not there
		say(inFlags(err))
		return exitUsage
	case errors.As(err, &noe): // the directory the command line names is no OUT
		say(noe.Error())
		return exitUsage
	case a.ctx.Err() != nil && errors.Is(err, context.Canceled):
		say("interrupted")
		return exitInterrupted
	case errors.As(err, &ee):
		if ee.msg != "" {
			say(ee.msg)
		}
		return ee.code
	}
	say(inFlags(err))
	return exitFailure
}

// usageMessage words a usage error in the CLI's flags; one about a value
// the run took from an environment variable names the variable.
func (a *app) usageMessage(err error) (msg string, env bool) {
	ue, ok := err.(*fault.UsageError)
	if !ok || ue.Option == "" || a.fromEnv[ue.Option] == "" {
		return inFlags(err), false
	}
	v := a.fromEnv[ue.Option]
	return fmt.Sprintf(
		"%s=%s: %s is set in the environment: unset it, or give %s",
		v,
		ue.Text(cliWord),
		v,
		cliWord(ue.Option),
	), true
}

// exitTable is the exit status of every command: what `debredist help`,
// the manual page and the README say.
var exitTable = []struct {
	code int
	what string
}{
	{exitOK, "success (verify: every check holds; diff: the two sides could be compared, whatever differs)"},
	{
		exitFailure,
		"failure: verify or index found problems; a download, index, deb or build failed; a file or directory could not be " +
			"written (--cache, --lock-out, -o); convert --fail-on-warnings met a warning",
	},
	{
		exitUsage,
		"usage error: the command line cannot be used as given: an unknown command or flag, wrong arguments, flags that do " +
			"not go together, a value not of the flag's form; or something it names (also through DEBREDIST_MIRROR or " +
			"SOURCE_DATE_EPOCH) is not there or not valid: a file or directory to read (a directory that is no debredist " +
			"output, for verify, nix and sbom), a mirror, a release or suite, a package or archive of it; or an output it " +
			"would replace (extract without --force, build-archive --out)",
	},
	{
		exitInterrupted,
		"interrupted (SIGINT/SIGTERM): the run is cancelled and leaves no partial output behind; a second interrupt ends " +
			"debredist at once",
	},
}

func (a *app) topUsage(w io.Writer) {
	fmt.Fprint(w, `debredist turns NVIDIA Jetson (L4T) .deb packages into NVIDIA-style CUDA
redistributables: redist archives and redistrib_*.json manifests, byte-reproducibly.

Usage:
  debredist [-v|--quiet] <command> [flags] [args]

Commands:
`)
	names := make([]string, 0, len(commands))
	width := 0
	for _, c := range commands {
		names = append(names, c.name)
		width = max(width, len(c.name))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, lookup(n).summary)
	}
	fmt.Fprint(w, `
Global flags (before the command or among its flags):
  -v, --verbose   log more (what, each command's help says)
  --quiet         show warnings and errors only (what it leaves out, likewise)
  -h, --help      help for debredist or a command
  --version       print the version

Exit status (every command):
`)
	for _, e := range exitTable {
		fmt.Fprintf(w, "  %-3d  %s\n", e.code, strings.ReplaceAll(wrap(e.what, 72), "\n", "\n       "))
	}
	fmt.Fprint(w, `
Errors read "debredist COMMAND: what happened: what to do".

Environment: DEBREDIST_MIRROR is the mirror when --mirror is not given;
SOURCE_DATE_EPOCH sets the archives' mtimes.

Example:
  debredist convert --jetpack 6 --out ./redist
  debredist nix ./redist

Run 'debredist help <command>' for a command's flags and examples.
`)
}

func (a *app) commandUsage(w io.Writer, c *command, fs *flagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n", strings.TrimSpace("debredist "+c.name+" "+c.args))
	fmt.Fprintln(w, strings.TrimSpace(c.help))
	fmt.Fprintln(w)
	n := 0
	fs.visible(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "Flags:")
		fs.printDefaults(w)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Example:")
	for _, l := range strings.Split(strings.TrimSpace(c.example), "\n") {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(l))
	}
}

// wrap breaks text into lines of at most width columns at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// setMemoryLimit gives the Go heap a soft limit of 224 MiB plus 80 MiB per
// core (GOMAXPROCS), unless GOMEMLIMIT is set: the garbage collector then
// runs before the heap doubles, so that peak RSS stays near the live data
// (compression blocks in flight and match-finder tables, bounded per core
// by archive.Budget) instead of twice it.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(int64(224<<20 + 80<<20*runtime.GOMAXPROCS(0)))
}
