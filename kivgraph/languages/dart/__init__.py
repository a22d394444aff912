"""The Dart language adapter: tree-sitter syntax layer, pubspec packages and library URIs."""
