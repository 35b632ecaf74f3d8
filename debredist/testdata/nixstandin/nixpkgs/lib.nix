# The nixpkgs lib functions the stand-in and debredist's overlays use,
# written for the tests with the semantics of nixpkgs' lib (fixed points,
# extensions, versions); see ../README.md.
rec {
  importJSON = f: builtins.fromJSON (builtins.readFile f);
  remove = e: builtins.filter (x: x != e);
  optionalAttrs = c: a: if c then a else { };
  optionals = c: l: if c then l else [ ];
  optional = c: x: if c then [ x ] else [ ];
  unique = builtins.foldl' (acc: x: if builtins.elem x acc then acc else acc ++ [ x ]) [ ];
  intersectLists = e: builtins.filter (x: builtins.elem x e);
  subtractLists = e: builtins.filter (x: !(builtins.elem x e));
  findFirst = pred: default: list: let found = builtins.filter pred list; in if found == [ ] then default else builtins.head found;
  all = builtins.all;
  any = builtins.any;
  mapNullable = f: a: if a == null then a else f a;
  toList = x: if builtins.isList x then x else [ x ];
  # lib.fixedPoints
  fix = f: let x = f x; in x;
  extends = overlay: f: final: let prev = f final; in prev // overlay final prev;
  toExtension = f:
    if builtins.isFunction f then
      final: prev: let fPrev = f prev; in if builtins.isFunction fPrev then f final prev else fPrev
    else final: prev: f;
  composeExtensions = f: g: final: prev:
    let fApplied = f final prev; prev' = prev // fApplied; in fApplied // g final prev';
  composeManyExtensions = builtins.foldl' composeExtensions (_: _: { });
  makeExtensible = f:
    let self = f self; in self // { extend = g: makeExtensible (extends g f); };
  mapAttrs = builtins.mapAttrs;
  filterAttrs = pred: set: builtins.removeAttrs set (builtins.filter (n: !(pred n set.${n})) (builtins.attrNames set));
  optionalString = c: s: if c then s else "";
  concatMapStringsSep = sep: f: l: builtins.concatStringsSep sep (map f l);
  # lib.attrsets: an output of a multiple-output package, else the package.
  getOutput = output: pkg: pkg.${output} or pkg.out or pkg;
  getLib = getOutput "lib";
  getDev = getOutput "dev";
  hasPrefix = p: s: builtins.substring 0 (builtins.stringLength p) s == p;
  hasSuffix = x: s: let n = builtins.stringLength s; m = builtins.stringLength x; in n >= m && builtins.substring (n - m) m s == x;
  # lib.sources.cleanSource: the directory without version control
  # directories, editor backups, object files and result links.
  cleanSource = src: builtins.path {
    path = src;
    name = "source";
    filter = path: type: let b = baseNameOf path; in
      !(type == "directory" && builtins.elem b [ ".git" ".svn" ".hg" "CVS" ])
      && !(hasSuffix "~" b || hasPrefix ".#" b || (hasPrefix "#" b && hasSuffix "#" b))
      && !(hasSuffix ".o" b || hasSuffix ".so" b)
      && !(type == "symlink" && hasPrefix "result" b);
  };
  versionOlder = a: b: builtins.compareVersions a b < 0;
  versionAtLeast = a: b: !(versionOlder a b);
  versions.majorMinor = v: let p = builtins.splitVersion v; in "${builtins.elemAt p 0}.${builtins.elemAt p 1}";
  versions.major = v: builtins.elemAt (builtins.splitVersion v) 0;
}
