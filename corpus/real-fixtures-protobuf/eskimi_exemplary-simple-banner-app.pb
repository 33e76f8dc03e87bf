
test-request-idH
>
1test-imp-idмлллллЛ?2<div>ad</div>R
creative-1─ю┬2┬eskimi"USD