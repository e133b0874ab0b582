// The API speaks in the protocol's types (`Location`, `Area`, `ProtocolError`…): an app that
// imports LocstreamClient gets them without importing LocstreamProtocol itself.
@_exported import LocstreamProtocol
