# debredist's overlay for nixpkgs' CUDA package sets (printed by `debredist nix`).
#
# This code is the same for every output directory: every fact about one comes
# from `data`, the JSON that `debredist nix` writes (schema debredist.nix/v1,
# docs/json.md), read with builtins.fromJSON. No value of data is ever Nix
# syntax; the attribute names made from it are made here, at evaluation time,
# so any package name works. Rules followed, with the files and revisions they
# were read at: internal/nixcheck/nixpkgs.json.
{
  data,
  # The user's choice: true accepts the insecure TensorRT the JetPack release
  # ships (nixpkgs' meta.knownVulnerabilities; `debredist verify --nixpkgs`).
  acceptInsecureTensorRT ? false,
  # null: nixpkgs fetches OUT's archives from data.base_url (file:// URLs).
  # Else redist -> relative_path -> the archive's derivation (nix --derivations).
  archives ? null,
}:
final: prev:
let
  inherit (final) lib;
  # The archives of OUT per redist, as their manifests name them.
  isOurs = redistName: relativePath: builtins.elem relativePath (data.archives.${redistName} or [ ]);

  # The redist system the package set picks for the host (its name differs
  # between generations of cuda-modules: redistSystem, backendStdenv.hostRedistSystem).
  redistSystemOf =
    cudaPackages: cudaPackages.redistSystem or cudaPackages.backendStdenv.hostRedistSystem or null;

  # The archive derivation of one package (nix --derivations).
  archiveOf =
    finalCudaPackages: info:
    let
      rels = lib.unique (map (r: r.relative_path) (builtins.attrValues info.releases));
      rel =
        if builtins.length rels == 1 then
          builtins.head rels
        else
          info.releases.${redistSystemOf finalCudaPackages}.relative_path;
    in
    archives.${info.redist}.${rel};

  # What every provided package gets. The attribute names below depend only on
  # data and the arguments, never on prevAttrs or finalAttrs: overrideAttrs is a
  # fixed point (make-derivation.nix), and names read from it recurse forever.
  fixPackage =
    finalCudaPackages: name: info: pkg:
    pkg.overrideAttrs (
      prevAttrs:
      {
        # Which archive of OUT, stated rather than left to the revision's
        # cuda_variant and platform rules (getSupportedReleases).
        passthru = prevAttrs.passthru // {
          supportedReleases = info.releases;
        };
        # Declared outputs the debs leave empty (checkCudaNonEmptyOutputs).
        outputs = builtins.filter (o: !(builtins.elem o info.drop_outputs)) prevAttrs.outputs;
      }
      // lib.optionalAttrs (info.stubs_hook != null) {
        # Agrees with the archive's lib/stubs on every revision (the default
        # of this flag differs between revisions of the package file).
        includeRemoveStubsFromRunpathHook = info.stubs_hook;
      }
      // lib.optionalAttrs (info.drop_inputs != [ ]) {
        # Inputs this CUDA release does not have (libnvjitlink before CUDA 12).
        buildInputs = builtins.filter (
          p: !(builtins.isAttrs p && builtins.elem (p.pname or null) info.drop_inputs)
        ) prevAttrs.buildInputs;
      }
      // lib.optionalAttrs (name == "tensorrt" && acceptInsecureTensorRT) {
        meta = prevAttrs.meta // {
          knownVulnerabilities = [ ];
        };
      }
      // lib.optionalAttrs (archives != null) {
        # buildRedist's src is a srcOnly of a fetchurl: its src becomes the
        # archive's derivation.
        src =
          if prevAttrs.src == null then
            null
          else if prevAttrs.src ? overrideAttrs && prevAttrs.src ? src then
            prevAttrs.src.overrideAttrs (_: {
              src = archiveOf finalCudaPackages info;
            })
          else
            archiveOf finalCudaPackages info;
      }
    );

  # A package nixpkgs has no package file for (cudnn_jit; cuda_compat_orin at
  # some revisions), built by the set's own buildRedist with the outputs the
  # archive fills.
  newPackage =
    finalCudaPackages: name: info:
    finalCudaPackages.buildRedist {
      redistName = info.redist;
      pname = name;
      inherit (info) outputs;
      meta.description = "${name} from a JetPack release's debs (debredist)";
    };

  # What this directory's CUDA release needs beyond the manifests. nixpkgs
  # applies _cuda.extensions to every CUDA package set; this one changes only
  # the set of data.cuda (the condition reads prevCudaPackages, which does not
  # depend on this extension).
  ourExtension =
    finalCudaPackages: prevCudaPackages:
    lib.optionalAttrs (prevCudaPackages.cudaMajorMinorVersion == data.cuda) (
      builtins.mapAttrs (
        name: info:
        fixPackage finalCudaPackages name info (
          if prevCudaPackages ? ${name} && prevCudaPackages.${name} != null then
            prevCudaPackages.${name}
          else
            newPackage finalCudaPackages name info
        )
      ) data.packages
      // builtins.listToAttrs (
        map (n: {
          name = n;
          value = null;
        }) data.null_packages
      )
    );

  # jetpack-nixos' cuda-packages-11-4-extension.nix, told apart by the
  # debWrapBuildRedist attribute only it returns, without the packages OUT
  # provides (JetPack 5: it rebuilds them from its own debs otherwise).
  dropDebWrapped =
    extension: finalCudaPackages: prevCudaPackages:
    let
      result = extension finalCudaPackages prevCudaPackages;
    in
    if result ? debWrapBuildRedist then
      builtins.removeAttrs result (builtins.attrNames data.packages)
    else
      result;

  # The package set with OUT's manifests (.override: nixpkgs' other manifests kept).
  withManifests = pkgSet: pkgSet.override (old: {
    manifests = (old.manifests or { }) // data.manifests;
  });
in
{
  _cuda = prev._cuda.extend (
    finalCuda: prevCuda:
    {
      extensions =
        (if data.own_set then map dropDebWrapped prevCuda.extensions else prevCuda.extensions)
        ++ [ ourExtension ];
    }
    // lib.optionalAttrs (archives == null) {
      lib = prevCuda.lib // {
        mkRedistUrl =
          redistName: relativePath:
          if isOurs redistName relativePath then
            "${data.base_url}/${redistName}/redist/${relativePath}"
          else
            prevCuda.lib.mkRedistUrl redistName relativePath;
      };
    }
  );
}
// (
  if data.own_set then
    {
      # JetPack 5: cuda-legacy defines the CUDA 11 sets; without it, the set is
      # built from nixpkgs' CUDA modules (which then must still know CUDA 11.4).
      ${data.set} =
        if prev ? ${data.set} then
          withManifests prev.${data.set}
        else
          final.callPackage final._cuda.bootstrapData.cudaPackagesPath { inherit (data) manifests; };
      ${data.major_set} = prev.${data.major_set} or final.${data.set};
    }
  else
    {
      ${data.set} = withManifests (prev.${data.set} or prev.${data.major_set});
    }
)
