/* matmul_naive.c - C = A * B for N x N static arrays (N at compile time, -DN=32),
 * the textbook i, j, k loops. An ordinary program: capture it and animate its
 * arrays with `retrace shmap --from-capture` (see examples/shmap/programs.lua). */
#ifndef N
#define N 32
#endif
double A[N][N], B[N][N], C[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = i + j;
            B[i][j] = i == j;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    return C[N - 1][N - 1] != 2.0 * (N - 1); /* B is the identity */
}
