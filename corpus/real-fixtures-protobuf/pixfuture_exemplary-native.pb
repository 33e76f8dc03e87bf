
test-response-id@
>
bid1imp1®Gáz®ó?2${"ver":"1.2","native":{"assets":[]}}ˆ"USD