# The few nixpkgs lib functions the stand-in and debredist's overlays use.
rec {
  importJSON = f: builtins.fromJSON (builtins.readFile f);
  remove = e: builtins.filter (x: x != e);
  optionalAttrs = c: a: if c then a else { };
  optionals = c: l: if c then l else [ ];
  fix = f: let x = f x; in x;
  extends = ext: f: self: let super = f self; in super // ext self super;
  composeExtensions = f: g: final: prev:
    let fApplied = f final prev; prev' = prev // fApplied; in fApplied // g final prev';
  composeManyExtensions = builtins.foldl' composeExtensions (_: _: { });
  mapAttrs = builtins.mapAttrs;
  versionOlder = a: b: builtins.compareVersions a b < 0;
  versionAtLeast = a: b: !(versionOlder a b);
  versions.majorMinor = v: let p = builtins.splitVersion v; in "${builtins.elemAt p 0}.${builtins.elemAt p 1}";
  versions.major = v: builtins.elemAt (builtins.splitVersion v) 0;
  makeExtensible = f:
    let self = f self; in self // { extend = g: makeExtensible (extends g f); };
}
