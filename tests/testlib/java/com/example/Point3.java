package com.example;
public class Point3 extends Point { public double z; }
