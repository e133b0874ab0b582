print("stream-client")
