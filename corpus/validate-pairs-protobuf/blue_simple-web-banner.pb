
req-id
blue-id¬2:https://getblue.io