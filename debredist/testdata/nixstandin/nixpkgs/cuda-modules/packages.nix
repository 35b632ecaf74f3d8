# The package files of pkgs/development/cuda-modules/packages (see
# ../../README.md): one entry per file, with what the tests need of it.
# No cudnn_jit and no cuda_compat_orin: nixpkgs has no file for them at
# the revisions modelled here.
let
  lib = import ../lib.nix;
  plain = redistName: pname: outputs: { buildRedist }: buildRedist { inherit redistName pname outputs; };
  library = pname: plain "cuda" pname [ "out" "dev" "include" "lib" "static" "stubs" ];
  out = pname: plain "cuda" pname [ "out" ];
in
builtins.listToAttrs (map (n: { name = n; value = out n; }) [
  "cuda_cccl" "cuda_cuobjdump" "cuda_cuxxfilt" "cuda_documentation" "cuda_nvdisasm" "cuda_nvprune"
  "cuda_profiler_api" "cuda_sanitizer_api" "cuda_crt" "cuda_ctadvisor" "cuda_culibos" "cuda_sandbox_dev"
  "cuda_tileiras" "libcuobjclient" "libnvptxcompiler" "libnvvm"
]) // builtins.listToAttrs (map (n: { name = n; value = library n; }) [
  "libcublas" "libcufft" "libcurand" "libnpp" "libnvjpeg" "cuda_nvrtc" "libnvjitlink"
]) // {
  # packages/libnvfatbin.nix at the generation jetpack-nixos pins
  # (4aa6836a): one output, and the stubs hook ("Includes stubs": NVIDIA's
  # archive has lib/stubs), so an archive without lib/stubs fails the
  # stubs check.
  libnvfatbin = { buildRedist }: buildRedist {
    redistName = "cuda"; pname = "libnvfatbin";
    outputs = [ "out" ];
    includeRemoveStubsFromRunpathHook = true;
  };
  # packages/cuda_cudart.nix (024ef1dc3076208119baaee8a2babec574573291):
  # the .pc files lose cudaroot= and link the driver's directory; the cuda-
  # ones take their libdir from the stubs; postInstall needs lib/stubs and
  # links each stub (and libcuda.so.1) into the stubs output's lib/.
  cuda_cudart = { buildRedist }: buildRedist {
    redistName = "cuda"; pname = "cuda_cudart";
    outputs = [ "out" "dev" "include" "lib" "static" "stubs" ];
    postPatch = ''
      for pc in $(find . -iname 'cudart-*.pc'); do
        sed -i -e 's|^cudaroot\s*=.*$||' -e 's|^Libs\s*:\(.*\)$|Libs: \1 -Wl,-rpath,/run/opengl-driver/lib|' "$pc"
      done
      for pc in $(find . -iname 'cuda-*.pc'); do
        sed -i -e 's|^cudaroot\s*=.*$||' -e "s|^libdir\s*=.*/lib\$|libdir=''${!outputStubs}/lib/stubs|" \
          -e 's|^Libs\s*:\(.*\)$|Libs: \1 -Wl,-rpath,/run/opengl-driver/lib|' "$pc"
      done
    '';
    postInstall = ''
      cd "''${!outputStubs}/lib/stubs"
      if [ -f libcuda.so ] && [ ! -f libcuda.so.1 ]; then ln -sr libcuda.so libcuda.so.1; fi
      ln -srt "''${!outputStubs}/lib/" *.so *.so.*
      cd - >/dev/null
    '';
  };
  # packages/cuda_nvcc.nix at the generation jetpack-nixos pins (4aa6836a, as
  # NOTES-i36 reports it; 0fcee7419cb5778cc60605239ab41cefeb696f91 for the
  # profile): one output; below CUDA 13 nvvm/ moves out and its lib64
  # becomes lib (it must exist), from 13.0 libnvvm's tree is copied in;
  # bin/nvcc.profile is edited with --replace-fail for the strings each
  # version's profile has; below 13.0 include/crt/host_defines.h must have
  # its __CUDACC__ line and include/crt/math_functions.h{,pp} get glibc's
  # signatures (--replace-fail); bin/nvcc is wrapped (it must be an
  # executable file).
  cuda_nvcc = { buildRedist, cudaOlder, cudaAtLeast, libnvvm, cuda_cccl }: buildRedist {
    redistName = "cuda"; pname = "cuda_nvcc";
    outputs = [ "out" ];
    allowFHSReferences = true;
    postInstall =
      let
        nvvm = ''"''${!outputBin}/nvvm"'';
        profile = ''"''${!outputBin}/bin/nvcc.profile"'';
        crt = ''"''${!outputInclude}/include/crt'';
        oldNvvm = if cudaOlder "12.5" then "$(TOP)/$(_NVVM_BRANCH_)/" else "$(TOP)/nvvm/";
        noexcept = f: ''--replace-fail "${f};" "${f} noexcept (true);"'';
        noexceptFunc = f: ''--replace-fail "__func__(${f})" "__func__(${f} noexcept (true))"'';
        hostDefines = "#if defined(__CUDACC__) || defined(__CUDA_ARCH__) || defined(__CUDA_LIBDEVICE__)";
      in
      (if cudaOlder "13.0" then ''
        moveToOutput nvvm "''${!outputBin}"
        mv --no-clobber ${nvvm}/lib64 ${nvvm}/lib
      '' else ''
        cp -r ${libnvvm} ${nvvm}
        chmod -R u+w ${nvvm}
      '') + ''
        substituteInPlace ${profile} --replace-fail '$(_TARGET_SIZE_)' ""
      '' + lib.optionalString (cudaAtLeast "13.0") ''
        substituteInPlace ${profile} --replace-fail '$(TOP)/$(_TARGET_DIR_)/include/cccl' "${lib.getOutput "include" cuda_cccl}/include"
      '' + ''
        substituteInPlace ${profile} --replace-fail '$(TOP)/$(_TARGET_DIR_)/include' "''${!outputInclude}/include"
        substituteInPlace ${profile} --replace-fail '${oldNvvm}' "''${!outputBin}/nvvm/"
        printf '\n# the split-out nvvm\nLIBRARIES =+ $(_SPACE_) "-L%s/lib"\nINCLUDES =+ $(_SPACE_) "-I%s/include"\n' ${nvvm} ${nvvm} >>${profile}
        if [ ! -f "''${!outputBin}/bin/nvcc" ] || [ ! -x "''${!outputBin}/bin/nvcc" ]; then
          echo "assertExecutable: ''${!outputBin}/bin/nvcc is not an executable file" >&2
          exit 1
        fi
      '' + lib.optionalString (cudaOlder "13.0") ''
        substituteInPlace ${crt}/host_defines.h" --replace-fail "${hostDefines}" "${hostDefines}"
        substituteInPlace ${crt}/math_functions.h" \
          ${noexcept "sinpi(double x)"} ${noexcept "sinpif(float x)"} ${noexcept "cospi(double x)"} \
          ${noexcept "cospif(float x)"} ${noexcept "rsqrt(double x)"} ${noexcept "rsqrtf(float x)"}
        substituteInPlace ${crt}/math_functions.hpp" \
          ${noexceptFunc "double rsqrt(const double a)"} ${noexceptFunc "double sinpi(double a)"} ${noexceptFunc "double cospi(double a)"} \
          ${noexceptFunc "float rsqrtf(const float a)"} ${noexceptFunc "float sinpif(const float a)"} ${noexceptFunc "float cospif(const float a)"}
      '';
  };
  cuda_cupti = plain "cuda" "cuda_cupti" [ "out" "dev" "include" "lib" "samples" ];
  # packages/cuda_nvml_dev.nix (1ac181a172c70d43e3336c1756d86e6a35f2eccb):
  # the stub hook always; the .pc file's libdir (as the hook rewrote it)
  # becomes the stubs output's lib (--replace-fail), its -lnvidia-ml gets
  # the driver's directory; postInstall needs lib/stubs and links
  # libnvidia-ml.so.1 there.
  cuda_nvml_dev = { buildRedist, cudaMajorMinorVersion }: buildRedist {
    redistName = "cuda"; pname = "cuda_nvml_dev";
    outputs = [ "out" "dev" "include" "stubs" ];
    includeRemoveStubsFromRunpathHook = true;
    allowFHSReferences = true;
    postPatch = ''
      substituteInPlace share/pkgconfig/nvidia-ml-${cudaMajorMinorVersion}.pc \
        --replace-fail "libdir=''${!outputLib}/lib" "libdir=''${!outputStubs}/lib" \
        --replace-fail -lnvidia-ml "-lnvidia-ml -Wl,-rpath,/run/opengl-driver/lib"
    '';
    postInstall = ''
      cd "''${!outputStubs}/lib/stubs"
      if [ -f libnvidia-ml.so ] && [ ! -f libnvidia-ml.so.1 ]; then ln -sr libnvidia-ml.so libnvidia-ml.so.1; fi
      if [ -f libnvidia-ml.a ] && [ ! -f libnvidia-ml.a.1 ]; then ln -sr libnvidia-ml.a libnvidia-ml.a.1; fi
      cd - >/dev/null
    '';
  };
  cuda_nvtx = plain "cuda" "cuda_nvtx" [ "out" "dev" "include" "lib" ];
  # packages/cuda_compat.nix (0230cc1baac1e9b3c2f729202c1875f318787125):
  # L4T driver libraries auto-patchelf may leave unresolved.
  cuda_compat = { buildRedist }: buildRedist {
    redistName = "cuda"; pname = "cuda_compat";
    outputs = [ "out" ];
    autoPatchelfIgnoreMissingDeps = [ "libnvdla_runtime.so" "libnvrm_gpu.so" "libnvrm_mem.so" "libcrypto.so.1.1" "libcrypto.so.3" ];
  };
  # packages/libcufile.nix (218fe975b3b36e992acc38e7431801dd0e2b1572):
  # numactl and rdma-core as inputs, the driver left unresolved.
  libcufile = { buildRedist, numactl, rdma-core }: buildRedist {
    redistName = "cuda"; pname = "libcufile";
    outputs = [ "out" "dev" "include" "lib" "static" ];
    allowFHSReferences = true;
    buildInputs = [ numactl rdma-core ];
    autoPatchelfIgnoreMissingDeps = [ "libcuda.so.1" ];
  };
  # packages/libcusolver.nix (2973b267eb5247d53f34adfcd489f26af859bd03):
  # libcublas, libcusparse and libnvjitlink as inputs; libnvjitlink only
  # from CUDA 12.0, as at 4aa6836a (where the real builder built JetPack
  # 5's libcusolver). At 2973b267 it is an input on every CUDA version, which
  # debredist's overlay does not drop on CUDA 11.4 (unlike libcusparse's).
  libcusolver = { buildRedist, cudaAtLeast, libcublas, libcusparse, libnvjitlink }: buildRedist {
    redistName = "cuda"; pname = "libcusolver";
    outputs = [ "out" "dev" "include" "lib" "static" "stubs" ];
    buildInputs = [ (lib.getLib libcublas) (lib.getLib libcusparse) ] ++ lib.optionals (cudaAtLeast "12.0") [ libnvjitlink ];
  };
  # packages/cuda_gdb.nix (1dbbce67809cafa79ee16b2100ac05ebd23e267b): gmp
  # from 12.0, expat (aarch64), from 12.5 libxcrypt-legacy, ncurses and
  # python3, whose other versions' cuda-gdb-python*-tui are removed.
  cuda_gdb = { buildRedist, cudaAtLeast, expat, gmp, libxcrypt-legacy, ncurses, python3 }: buildRedist {
    redistName = "cuda"; pname = "cuda_gdb";
    outputs = [ "out" "bin" ];
    allowFHSReferences = true;
    buildInputs = lib.optionals (cudaAtLeast "12.0") [ gmp ] ++ [ expat ]
      ++ lib.optionals (cudaAtLeast "12.5") [ libxcrypt-legacy ncurses python3 ];
    postInstall = lib.optionalString (cudaAtLeast "12.5") ''
      cd "''${!outputBin}/bin"
      for tui in cuda-gdb-python*-tui; do
        [ "$tui" = "cuda-gdb-python${lib.versions.majorMinor python3.version}-tui" ] || rm -rf "$tui"
      done
      cd - >/dev/null
    '';
  };
  # packages/libcusparse.nix: libnvjitlink is an input on every CUDA version.
  libcusparse = { buildRedist, libnvjitlink }: buildRedist {
    redistName = "cuda"; pname = "libcusparse";
    outputs = [ "out" "dev" "include" "lib" "static" "stubs" ];
    buildInputs = [ libnvjitlink ];
  };
  # packages/libcudla.nix (1dbbce67809cafa79ee16b2100ac05ebd23e267b): the
  # driver's libraries auto-patchelf may leave unresolved.
  libcudla = { buildRedist, cudaConfig, cudaOlder }: buildRedist {
    redistName = "cuda"; pname = "libcudla";
    outputs = [ "out" "dev" "include" "lib" "stubs" ];
    autoPatchelfIgnoreMissingDeps = [ "libnvcudla.so" ] ++ lib.optionals (cudaOlder "12") [ "libcuda.so.1" "libnvdla_runtime.so" ];
    platformAssertions = [ { message = "Only Xavier (7.2) and Orin (8.7) Jetson devices are supported"; assertion = lib.subtractLists [ "7.2" "8.7" ] cudaConfig.cudaCapabilities == [ ]; } ];
  };
  # packages/cudnn.nix (102b00ab9cc1b83b2c17f64e0001748d792e71b0): libcublas
  # and zlib as inputs, cuda_nvrtc's lib on the RUNPATH; cuDNN 8's
  # postFixup adds NEEDED entries to libcudnn.so and libcudnn_ops_infer.so
  # with patchelf (real ELF files, found by auto-patchelf).
  cudnn = { buildRedist, libcublas, cuda_nvrtc, zlib }: buildRedist (finalAttrs: {
    redistName = "cudnn"; pname = "cudnn";
    outputs = [ "out" "dev" "include" "lib" "static" ];
    buildInputs = [ (lib.getLib libcublas) zlib ];
    appendRunpaths = [ "${lib.getLib cuda_nvrtc}/lib" ];
    postFixup = lib.optionalString (lib.versionAtLeast finalAttrs.version "8" && lib.versionOlder finalAttrs.version "9") ''
      patchelf "''${!outputLib}/lib/libcudnn.so" --add-needed libcudnn_cnn_infer.so
      patchelf "''${!outputLib}/lib/libcudnn_ops_infer.so" --add-needed libcublas.so --add-needed libcublasLt.so
    '';
  });
  cudnn_samples = { buildRedist }: buildRedist {
    redistName = "cudnn"; pname = "cudnn_samples";
    meta.broken = true;
  };
  # packages/tensorrt: samples below 10.14.1, platformAssertions on
  # linux-aarch64 (Orin only), insecure below 10.16.1 (6aa846a0 and later).
  # Its build (packages/tensorrt.nix, 024ef1dc3076208119baaee8a2babec574573291):
  # allowFHSReferences; cudnn, cuda_nvrtc, cuda_cudart and on Jetson libcudla as inputs (the DLA
  # compiler may stay unresolved there); preInstall puts
  # targets/aarch64-linux-gnu/{bin,lib} in place of links to them;
  # postInstall links include/NvOnnx*.h into include/onnx, moves python/
  # to the include output and removes python/*.whl (at least one),
  # moves data/ to samples, removes lib/stubs (it must exist); postFixup
  # adds libnvinfer_plugin.so.<major> to bin/trtexec's NEEDED (patchelf:
  # bin/trtexec must be a real ELF executable).
  tensorrt = { buildRedist, cudaConfig, redistSystem, backendStdenv, cudnn, cuda_nvrtc, cuda_cudart, libcudla }: buildRedist (finalAttrs: {
    redistName = "tensorrt"; pname = "tensorrt";
    allowFHSReferences = true;
    outputs = [ "out" "bin" "dev" "include" "lib" ] ++ lib.optionals (lib.versionOlder finalAttrs.version "10.14.1") [ "samples" ] ++ [ "static" ];
    buildInputs = [ (lib.getLib cudnn) (lib.getLib cuda_nvrtc) cuda_cudart ] ++ lib.optionals backendStdenv.hasJetsonCudaCapability [ libcudla ];
    autoPatchelfIgnoreMissingDeps = lib.optionals backendStdenv.hasJetsonCudaCapability [ "libnvdla_compiler.so" ];
    preInstall = ''
      targets="$NIX_BUILD_TOP/$sourceRoot/targets/aarch64-linux-gnu"
      for d in bin lib; do
        if [ -L "$NIX_BUILD_TOP/$sourceRoot/$d" ]; then
          rm "$NIX_BUILD_TOP/$sourceRoot/$d"
          mv --no-clobber "$targets/$d" "$NIX_BUILD_TOP/$sourceRoot/$d"
        fi
      done
      for d in include samples; do
        if [ -L "$targets/$d" ]; then rm "$targets/$d"; fi
      done
      if [ -d "$NIX_BUILD_TOP/$sourceRoot/targets" ]; then rm -r "$NIX_BUILD_TOP/$sourceRoot/targets"; fi
    '';
    postInstall = ''
      mkdir "''${!outputInclude}/include/onnx"
      (cd "''${!outputInclude}/include" && ln -srt "''${!outputInclude}/include/onnx/" NvOnnx*.h)
      moveToOutput python "''${!outputInclude}"
      rm "''${!outputInclude}"/python/*.whl
      moveToOutput data "''${!outputSamples}"
      rm -f "''${!outputLib}/lib/libnvinfer_builder_resource_win.so.${lib.versions.majorMinor finalAttrs.version}.${builtins.elemAt (builtins.splitVersion finalAttrs.version) 2}"
      rm -r "''${!outputLib}/lib/stubs"
    '';
    postFixup = ''
      patchelf "''${!outputBin}/bin/trtexec" --add-needed libnvinfer_plugin.so.${lib.versions.major finalAttrs.version}
    '';
    platformAssertions = [ { message = "Only Orin (8.7) is supported on linux-aarch64"; assertion = lib.versionAtLeast finalAttrs.version "10.0" && redistSystem == "linux-aarch64" -> cudaConfig.cudaCapabilities == [ "8.7" ]; } ];
    meta.knownVulnerabilities = lib.optionals (lib.versionOlder finalAttrs.version "10.16.1") [ "CVE-2026-24188: OOB write" ];
  });
}
