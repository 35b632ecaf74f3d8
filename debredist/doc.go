// Package debredist turns NVIDIA Jetson (L4T) .deb packages into
// NVIDIA-style CUDA redistributables: redist-shaped archives and
// redistrib_<label>.json manifests, byte-reproducible, for JetPack 5, 6
// and 7.
//
// It is the facade: each call runs the pipeline up to a stage, and the
// stages live in their own packages. A [Profile] (package [profile])
// names a release; [Plan] reads its apt indexes (package [apt]) or a lock
// file and groups the debs into redist packages (package [plan]); [Fetch]
// adds the download into a verified, content-addressed cache; [Convert]
// then lays every package out in NVIDIA's archive layout, writes
// deterministic archives, the manifests and provenance (package [redist])
// and publishes them in the output directory as one new generation;
// [Diff] compares two releases (package [reldiff]); [Inventory] writes a
// lock; [SBOM] writes an output's bill of materials (SPDX or CycloneDX);
// [Nix] prints the overlay (or the fixed-output derivations) that hands
// an output to nixpkgs; [BuildArchive] builds one recorded archive again,
// as those derivations do. Package [verify] re-checks an output directory
// and applies nixpkgs' rules to it. docs/architecture.md maps every stage
// to its package.
//
// The stages compose: [Plan] is a function of the release's indexes (or
// lock) and its profile and reads no deb; [PlanCached] adds the cache
// look-ahead Convert plans with (packages whose cached debs carry nothing
// are skipped); [ConvertPlan] converts exactly a plan's packages, from
// exactly their debs; and package [outdir] reads the resulting OUT (one
// generation, through the product links), as Convert, Diff, SBOM and Nix
// do themselves. How one redist package is built and how archives are
// compressed are the stages' own business, not this package's API: it
// translates options, calls a stage and reports what it did.
//
// The package prints nothing, parses no flags and never exits: progress
// arrives as events ([event.Event]) through [Options.OnEvent], failures
// as errors. Every I/O call takes a context first, and the bounds on what
// a deb may expand to are per call ([DebLimits]).
//
// # Options
//
// [Options] is nested by stage, as crane nests its remote options:
// [Source] (where indexes and debs come from: mirror, cache, offline,
// keyring, retries, HTTP client, parallel downloads), [Release] (which
// release: JetPack, L4T suite, profile file or lock) and [Build] (how to
// build: out, jobs, compression, preset, mtime, only, limits, lock-out).
// Each call reads the stages it runs: Plan reads Source, Release and
// [Build.Only]; Fetch adds [Build.LockOut]; Convert reads everything;
// Inventory reads Source and Release; Diff takes a [DiffOptions] with a
// Source only. [Options.Check] validates what Plan, Fetch and Convert
// share; its usage errors name the option as data ([fault.UsageError]'s
// Option, "Build.Preset"), which the CLI words in its flags ("--preset 7:
// ..."). The zero value of every field is its default. What a call
// counted comes back in its result ([Result.Downloads],
// [FetchResult.Downloads]).
//
// # Errors
//
// Every failure a caller may branch on has one type, defined once, used
// by the stage that fails and returned as is (found with [errors.As]
// whatever wraps it). Package [fault] is the catalogue:
//
//   - [*fault.DebError]: a deb that cannot be read or extracted safely;
//     its Kind says why (DebFormat, DebUnsafePath, DebDevice, DebLimit for
//     decompression bombs and other bounds, DebCompression, DebTruncated,
//     DebExists, DebIO) and Deb, Member and Entry say where.
//   - [*fault.HTTPError], [*fault.HashMismatchError], [*fault.MissingError]
//     (offline), [*fault.SignatureError] ([Source.Keyring]),
//     [*fault.CorruptCacheError]: downloads and the cache;
//     [*fault.IndexError]: a repo's Packages index that cannot be fetched,
//     verified against its Release file or parsed (Repo and Suite say
//     which); [fault.ErrUnverifiedIndex]: an index no Release file lists;
//     [*fault.NotFoundError] (inside the IndexError): a suite the mirror
//     lacks, with the suites it has, or a missing mirror directory (inside
//     a [*fault.UsageError] whose Option is "Source.Mirror" when the caller
//     gave it); [*fault.SameCauseError]: many debs that failed the same
//     way, said once.
//   - [*fault.UnplacedError], [*fault.ConflictError], [*fault.LinkError]:
//     a redist package whose deb paths the profile's layout rules cannot
//     place.
//   - [*fault.IncompleteError]: a plan that lacks redist packages the
//     profile expects (an index cut short, a deb pulled upstream).
//   - [*plan.VersionError]: a redist package whose debs disagree on the
//     version; [*profile.InvalidError], [*apt.LockError],
//     [*fault.UsageError]: inputs the user named (a UsageError's File
//     names a file that is missing or malformed, its Option the option
//     whose value cannot be used).
//   - [*redist.WarningsError]: an output with warnings that
//     [Build.FailOnWarnings] does not allow.
//   - [*verify.Error]: what [verify.Dir], [verify.Nixpkgs] or Convert's
//     check of its own output found wrong, as Problems (a path and an
//     error each, like x/mod/zip's FileError).
//
// The messages name the deb, member, entry, URL or package concerned;
// [context.Canceled] and the os errors stay reachable with [errors.Is].
//
// # Vocabulary
//
// One concept, one name; where a JSON format or the CLI fixed another
// spelling before, the table says so (those bytes do not change):
//
//	concept                 Go                                   JSON / CLI
//	L4T apt suite, "r36.5"  Release.L4T, Profile.L4T,            profile and diff "l4t",
//	                        reldiff.Side.L4T                     lock "suite", --l4t
//	JetPack version, "6"    Release.JetPack, Profile.JetPack     "jetpack", --jetpack
//	the apt Release file    apt.ReleaseFile (apt.ParseReleaseFile)
//	redist package          plan.Package.PName                   "pname"; --only names them
//	product ("cuda")        plan.Package.Product                 "product"; OUT/<product>
//	component               redist.Component (a manifest's);     a manifest's keys
//	                        profile.ComponentRule (its rule),
//	                        reldiff.ComponentChange (its change)
//	CUDA variant ("12")     redist.PlatformArtifact.CUDAVariant, "cuda_variant"
//	                        redist.Archive.CUDAVariant,
//	                        plan.Package.CUDAVariant;
//	                        redist.VariantKey spells the         "cuda12"
//	                        manifest's key
//	archive size            int64 bytes; redist.Artifact.Size    "size"
//	                        a string (NVIDIA's schema),
//	                        redist.Artifact.Bytes the number
//	parallel downloads      Source.ParallelDownloads (a count)   --downloads
//	what was downloaded     Result.Downloads,                    "downloads"
//	                        FetchResult.Downloads (event.Downloads)
//	compression preset      Build.Preset; redist.Encoder.Preset  "preset", --preset
//	                        (the one used)
//	a plan                  plan.Plan (what Plan returns), built
//	                        on plan.Group's plan.Grouping
//	what a plan leaves out  plan.SkippedDeb (a deb),             "skipped",
//	                        plan.SkippedPackage (a redist        "skipped_packages"
//	                        package)
//	OUT                     Build.Out; outdir.Snapshot reads one --out
//	                        generation, outdir.Product one
//	                        manifest with its provenance (paths
//	                        relative to OUT)
//	built-in profiles       Profiles, FindProfile, LoadProfile   profiles
//	                        (profile.Builtin, profile.ForJetPack,
//	                        profile.LoadFile underneath)
//	a valid L4T suite       profile.ValidSuite
//	a device in a deb       entry.ErrDevice
package debredist
