"""The Dart language adapter: tree-sitter syntax layer, pubspec packages and library URIs."""

from kivgraph.languages.dart.adapter import DartAdapter

__all__ = ["DartAdapter"]
