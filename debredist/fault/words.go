package fault

import (
	"errors"
	"fmt"
	"strings"
)

// Ref names what a message points its reader to: an option of package
// debredist (a field of its Options, "Source.Mirror") or a call of the
// library ("verify.Dir"). Its value is how the library words it; a front
// end words each Ref its own way (the CLI: a flag, an environment variable
// or a command) through Render, without reading the message's prose.
type Ref string

// The Refs the library's messages name. debredist's tests check that every
// option Ref names a field of its options and that the CLI words each one.
const (
	RefJetPack              Ref = "Release.JetPack"
	RefL4T                  Ref = "Release.L4T"
	RefProfileFile          Ref = "Release.ProfileFile"
	RefLockFile             Ref = "Release.LockFile"
	RefOut                  Ref = "Build.Out"
	RefJobs                 Ref = "Build.Jobs"
	RefCompression          Ref = "Build.Compression"
	RefPreset               Ref = "Build.Preset"
	RefOnly                 Ref = "Build.Only"
	RefMTime                Ref = "Build.MTime"
	RefLockOut              Ref = "Build.LockOut"
	RefSBOM                 Ref = "Build.SBOM"
	RefAllowWarnings        Ref = "Build.AllowWarnings"
	RefFailOnWarnings       Ref = "Build.FailOnWarnings"
	RefAllowNonEmptyOut     Ref = "Build.AllowNonEmptyOut"
	RefMirror               Ref = "Source.Mirror"
	RefCacheDir             Ref = "Source.CacheDir"
	RefOffline              Ref = "Source.Offline"
	RefKeyring              Ref = "Source.Keyring"
	RefAllowUnverifiedIndex Ref = "Source.AllowUnverifiedIndex"
	RefParallelDownloads    Ref = "Source.ParallelDownloads"
	RefForce                Ref = "ExtractOptions.Force"
	RefNixMirror            Ref = "NixOptions.Mirror"

	RefProfiles Ref = "Profiles"                                 // the built-in release profiles
	RefFetch    Ref = "Fetch"                                    // downloading a release's debs into the cache
	RefConvert  Ref = "Convert"                                  // converting a release
	RefVerify   Ref = "verify.Dir"                               // checking an output directory
	RefNixpkgs  Ref = "verify.Nixpkgs"                           // applying nixpkgs' rules to one
	RefProfile  Ref = "one of Profiles' entries encoded as JSON" // what a profile file holds
)

// Refs lists every Ref above, in the order they are declared.
var Refs = []Ref{
	RefJetPack, RefL4T, RefProfileFile, RefLockFile,
	RefOut, RefJobs, RefCompression, RefPreset, RefOnly, RefMTime, RefLockOut, RefSBOM, RefAllowWarnings,
	RefFailOnWarnings, RefAllowNonEmptyOut,
	RefMirror, RefCacheDir, RefOffline, RefKeyring, RefAllowUnverifiedIndex, RefParallelDownloads,
	RefForce, RefNixMirror,
	RefProfiles, RefFetch, RefConvert, RefVerify, RefNixpkgs, RefProfile,
}

// Words words a Ref: the library's own words are the Ref's value.
type Words func(Ref) string

// Say is r in w's words; a nil Words says the library's.
func (w Words) Say(r Ref) string {
	if w == nil {
		return string(r)
	}
	return w(r)
}

// Message is an error whose text names Refs: made by Errorf, it reads in
// the library's words, and Render words it as a front end does.
type Message struct {
	format string
	args   []any
}

// Errorf is [fmt.Errorf] whose arguments may be Refs: the message names them
// in the library's words, and a front end renders it in its own
// (Render). Errors among the arguments are wrapped (%w), and a Message or
// UsageError among them is rendered in the same words.
func Errorf(format string, args ...any) *Message {
	return &Message{format: format, args: args}
}

func (m *Message) Error() string { return m.Render(nil) }

// Render is the message with every Ref worded by w (nil: the library's
// words), and every error argument rendered the same way.
func (m *Message) Render(w Words) string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		args[i] = renderArg(a, w)
	}
	return fmt.Sprintf(strings.ReplaceAll(m.format, "%w", "%v"), args...)
}

// Unwrap returns the errors among the arguments.
func (m *Message) Unwrap() []error {
	var errs []error
	for _, a := range m.args {
		if e, ok := a.(error); ok {
			errs = append(errs, e)
		}
	}
	return errs
}

func renderArg(a any, w Words) any {
	switch v := a.(type) {
	case Ref:
		return w.Say(v)
	case error:
		return Render(v, w)
	}
	return a
}

// renderer is an error that can word its Refs another way.
type renderer interface {
	error
	Render(Words) string
}

// Render is err's message with every Ref its Messages and UsageErrors name
// worded by w, wherever they sit in its chain: each such error's text in
// the library's words is replaced by its text in w's (an error the library
// wraps with [fmt.Errorf] keeps its own words around it).
func Render(err error, w Words) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(renderer); ok {
		return r.Render(w)
	}
	s := err.Error()
	if w == nil {
		return s
	}
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if r, ok := e.(renderer); ok {
			s = strings.Replace(s, r.Error(), r.Render(w), 1)
			return // r rendered its own chain
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		default:
			walk(errors.Unwrap(e))
		}
	}
	walk(err)
	return s
}
