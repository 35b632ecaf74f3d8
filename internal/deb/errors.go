package deb
