// Command debredist turns NVIDIA Jetson (L4T) .deb packages into NVIDIA-style
// CUDA redistributables (archives + redistrib_*.json manifests).
//
// It only parses flags, renders progress and results and maps errors to exit
// codes; all the work is done by package github.com/debredist/debredist/debredist.
package main
