# Stand-in for pkgs/stdenv/generic/make-derivation.nix and check-meta.nix
# (see ../README.md). overrideAttrs is nixpkgs' fixed point: the attributes
# are rattrs applied to their own final value, and an override is an
# extension of rattrs, so an override whose attribute names depend on
# prevAttrs or finalAttrs recurses forever, as in nixpkgs. The meta checks
# (unfree, broken, unavailable on the platform, insecure) throw when the
# derivation is forced (drvPath, outPath, or as another one's input), not
# when other attributes are read.
{ lib, config, system }:
let
  makeDerivationExtensible = rattrs:
    let
      args = rattrs (args // { inherit finalPackage overrideAttrs; });
      overrideAttrs = f0:
        let f = lib.toExtension f0; in
        makeDerivationExtensible (lib.extends f rattrs);
      finalPackage = mkDrv overrideAttrs args;
    in
    finalPackage;

  # check-meta.nix: config.allowInsecurePredicate, by default the name in
  # config.permittedInsecurePackages.
  insecureAllowed = config.allowInsecurePredicate or (p: builtins.elem p.name (config.permittedInsecurePackages or [ ]));
  # check-meta.nix: why the package may not be evaluated, or null.
  problem = attrs:
    let
      meta = attrs.meta or { };
      name = attrs.name or "${attrs.pname}-${attrs.version}";
      licenses = lib.toList (meta.license or [ ]);
    in
    if builtins.any (l: !(l.free or true)) licenses && !(config.allowUnfree or false) then
      "Package ‘${name}’ has an unfree license, refusing to evaluate."
    else if meta.broken or false && !(config.allowBroken or false) then
      "Package ‘${name}’ is marked as broken, refusing to evaluate."
    else if builtins.elem system (meta.badPlatforms or [ ]) || (meta ? platforms && !(builtins.elem system meta.platforms)) then
      "Package ‘${name}’ is not available on the requested hostPlatform: ${system}"
    else if (meta.knownVulnerabilities or [ ]) != [ ] && !(insecureAllowed (attrs // { inherit name; })) then
      "Package ‘${name}’ is marked as insecure, refusing to evaluate: ${builtins.concatStringsSep ", " meta.knownVulnerabilities}"
    else null;

  # What the builder sees of the attributes: strings, paths, numbers,
  # booleans, null, derivations and lists of them (as nixpkgs passes them
  # to the builder's environment); env's attributes too.
  envValue = v: builtins.isString v || builtins.isPath v || builtins.isBool v || builtins.isInt v || v == null
    || (builtins.isAttrs v && v ? outPath) || (builtins.isList v && builtins.all envValue v);
  notEnv = [ "passthru" "meta" "finalPackage" "overrideAttrs" "name" "outputs" "buildInputs" "env" "system" "builder" "args" ];

  mkDrv = overrideAttrs: attrs:
    let
      name = attrs.name or "${attrs.pname}-${attrs.version}";
      outputs = attrs.outputs or [ "out" ];
      drv = derivation (lib.filterAttrs (n: v: !(builtins.elem n notEnv) && envValue v) attrs // attrs.env or { } // {
        inherit name system outputs;
        # The stand-in's stdenv (stdenv/builder.sh): the host's bash and tools.
        builder = "/bin/bash";
        args = [ ./stdenv/builder.sh ];
        # Every output of every input (nixpkgs' propagation of a
        # multiple-output package's outputs, simplified).
        buildInputs = builtins.concatMap (d: d.all or [ d ]) (attrs.buildInputs or [ ]);
      });
      why = problem attrs;
      guard = v: if why == null then v else throw why;
    in
    builtins.removeAttrs attrs [ "passthru" "finalPackage" ] // (attrs.passthru or { }) // {
      inherit name overrideAttrs;
      type = "derivation";
      meta = attrs.meta or { };
      passthru = attrs.passthru or { };
      drvPath = guard drv.drvPath;
      outPath = guard drv.outPath;
      outputName = builtins.head outputs;
      all = map (o: guard drv.${o}) outputs;
    } // builtins.listToAttrs (map (o: { name = o; value = guard drv.${o}; }) outputs);
in
fnOrAttrs: makeDerivationExtensible (if builtins.isFunction fnOrAttrs then fnOrAttrs else _: fnOrAttrs)
