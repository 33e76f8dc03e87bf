
test-request-id#
test-imp-idj
{json string}1.2:some-page-url